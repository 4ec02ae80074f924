import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  admin,
  anthropicText,
  anthropicToolUse,
  fakes,
  GROUP_CHAT,
  OTHER_PRIVATE_CHAT,
  openaiText,
  openaiToolCalls,
  PRIVATE_CHAT,
  postUpdate,
  say,
  sentText,
  textUpdate,
} from "./helpers.ts";

const setProvider = (chatId: number, config: unknown) =>
  admin(`/chats/${chatId}/config`, { method: "PUT", body: JSON.stringify(config) });

describe("one conversation across providers", () => {
  it("moves from OpenAI to Anthropic and back, tool calls included", async () => {
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "remember", arguments: { fact: "cat is Tom" }, id: "call_openai_1" }]),
      openaiText("Saved."),
    );
    await say("remember my cat is Tom", { count: 2 });

    await setProvider(PRIVATE_CHAT, { provider: "anthropic", model: "claude-test" });
    await fakes.script(
      "anthropic",
      anthropicToolUse([{ name: "recall", input: { query: "cat" }, id: "toolu_anthropic_1" }]),
      anthropicText("Your cat is Tom."),
    );
    const fromAnthropic = await say("what is my cat called?", { count: 4 });
    expect(sentText(fromAnthropic)).toBe("Your cat is Tom.");
    const first = (await fakes.requests("anthropic"))[0]!.body as {
      model: string;
      messages: { role: string; content: { type: string; id?: string; tool_use_id?: string }[] }[];
    };
    expect(first.model).toBe("claude-test");
    expect(first.messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
    expect(first.messages[1]!.content).toEqual([
      expect.objectContaining({ type: "tool_use", id: "call_openai_1", name: "remember" }),
    ]);
    expect(first.messages[2]!.content).toEqual([
      expect.objectContaining({ type: "tool_result", tool_use_id: "call_openai_1" }),
    ]);

    await setProvider(PRIVATE_CHAT, { provider: "openai" });
    await fakes.script("openai", openaiText("Back on OpenAI."));
    await say("thanks", { count: 5 });
    const back = (await fakes.requests("openai")).at(-1)!.body as {
      model: string;
      messages: { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[];
    };
    expect(back.model).toBe("gpt-test");
    const calls = back.messages.flatMap((message) => message.tool_calls?.map((call) => call.id) ?? []);
    const results = back.messages.filter((message) => message.role === "tool").map((message) => message.tool_call_id);
    expect(calls).toEqual(["call_openai_1", "toolu_anthropic_1"]);
    expect(results).toEqual(calls);
  });

  it("a disabled chat gets no model call and no reply", async () => {
    await setProvider(PRIVATE_CHAT, { enabled: false });
    await postUpdate(textUpdate("anyone there?"));
    const status = await say("/status");
    expect(sentText(status)).toContain("disabled");
    expect(await fakes.requests("openai")).toHaveLength(0);
    expect(await fakes.requests("telegram", { method: "sendMessage" })).toHaveLength(1);
    // Nor does /agent start a container run.
    const agent = await say("/agent list the files", { count: 2 });
    expect(sentText(agent)).toContain("disabled");
    expect(await fakes.requests("runner")).toHaveLength(0);
    expect(await fakes.requests("anthropic")).toHaveLength(0);
  });

  it("answers nothing while the stored config is invalid (it may have narrowed something), and says so in /status", async () => {
    await env.CONFIG.put(`chat-config:${PRIVATE_CHAT}`, JSON.stringify({ provider: "gemini" }));
    await say("hello");
    expect(await fakes.requests("openai")).toHaveLength(0);
    const status = await say("/status", { count: 2 });
    expect(sentText(status)).toContain("stored config is invalid (provider): I do not answer until it is fixed");
  });
});

describe("commands", () => {
  it("/status shows provider, model, history and tokens today and in total", async () => {
    await fakes.script("openai", openaiText("hi", { prompt_tokens: 1200, completion_tokens: 34 }));
    await say("hello");
    const status = sentText(await say("/status", { count: 2 }));
    expect(status).toContain("<b>Provider:</b> openai (from DEFAULT_PROVIDER)");
    expect(status).toContain("<code>gpt-test</code>");
    expect(status).toContain("<b>Messages in history:</b> 2");
    expect(status).toContain("<b>Tokens today:</b> 1,200 in, 34 out (1 turns)");
    expect(status).toContain("<b>Tokens in total:</b> 1,200 in, 34 out (1 turns)");
    expect(await fakes.requests("openai")).toHaveLength(1);
  });

  it("/model shows the effective provider and model (admins also get buttons to change them)", async () => {
    expect(sentText(await say("/model", { chatId: OTHER_PRIVATE_CHAT }))).toBe(
      "This chat uses <b>openai</b> with model <code>gpt-test</code>.",
    );
    expect(sentText(await say("/model"))).toBe(
      "This chat uses <b>openai</b> with model <code>gpt-test</code>.\nChoose another:",
    );
  });

  it("/provider lets admins set and reset the chat's provider, and refuses others politely", async () => {
    const refused = await say("/provider anthropic", { chatId: OTHER_PRIVATE_CHAT });
    expect(sentText(refused)).toContain("only the bot's admins");
    expect(await env.CONFIG.get(`chat-config:${OTHER_PRIVATE_CHAT}`)).toBeNull();

    const unknown = await say("/provider gemini");
    expect(sentText(unknown)).toContain('Unknown provider "gemini"');

    const set = await say("/provider anthropic claude-opus-test", { count: 2 });
    expect(sentText(set)).toContain("<b>anthropic</b> with model <code>claude-opus-test</code>");
    expect(JSON.parse((await env.CONFIG.get(`chat-config:${PRIVATE_CHAT}`))!)).toEqual({
      provider: "anthropic",
      model: "claude-opus-test",
    });

    // The admin user can set a group's provider from inside the group.
    await say("/provider openai@testbot", { chatId: GROUP_CHAT, fromId: PRIVATE_CHAT });
    await say("/provider@testbot openai gpt-group", { chatId: GROUP_CHAT, fromId: PRIVATE_CHAT, count: 2 });
    expect(JSON.parse((await env.CONFIG.get(`chat-config:${GROUP_CHAT}`))!)).toEqual({
      provider: "openai",
      model: "gpt-group",
    });

    const reset = await say("/provider reset", { count: 3 });
    expect(sentText(reset)).toContain("config is removed");
    expect(await env.CONFIG.get(`chat-config:${PRIVATE_CHAT}`)).toBeNull();
    expect(await fakes.requests("openai")).toHaveLength(0);
  });
});

describe("system prompt", () => {
  it("carries the bot's name, the chat's prompt, what the chat is, its tools and the date", async () => {
    await setProvider(GROUP_CHAT, { systemPrompt: "Always answer in rhymes." });
    await say("@testbot hi", { chatId: GROUP_CHAT, title: "Family" });
    const system = ((await fakes.requests("openai"))[0]!.body as { messages: { role: string; content: string }[] })
      .messages[0]!;
    expect(system.role).toBe("system");
    expect(system.content).toContain("You are Testbot");
    expect(system.content).toContain('group chat called "Family"');
    expect(system.content).toContain("Always answer in rhymes.");
    expect(system.content).toContain("remember");
    expect(system.content).toContain(String(new Date().getUTCFullYear()));
  });

  it("offers only the allowlisted tools", async () => {
    await setProvider(PRIVATE_CHAT, { tools: ["recall", "web_fetch"] });
    await say("hi");
    const tools = ((await fakes.requests("openai"))[0]!.body as { tools: { function: { name: string } }[] }).tools;
    expect(tools.map((tool) => tool.function.name)).toEqual(["recall", "web_fetch"]);
  });
});
