import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "../fakes/server.ts";
import { admin, fakes, flushUsageNow, openaiText, openaiToolCalls, PRIVATE_CHAT, say, sentText } from "./helpers.ts";

const configure = (config: unknown) =>
  admin(`/chats/${PRIVATE_CHAT}/config`, { method: "PUT", body: JSON.stringify(config) });

interface ChatBody {
  model: string;
  max_tokens?: number;
  messages: { role: string; content: string | null }[];
  tools?: { function: { name: string } }[];
}
const bodyOf = (request: RecordedRequest) => request.body as ChatBody;

/** In the tests, Workers AI's OpenAI-compatible endpoint (WORKERS_AI_BASE_URL) is the fake OpenAI server. */
describe("the workers-ai provider", () => {
  it("answers with Workers AI's default model and token, asking for more than its 256-token default", async () => {
    expect((await configure({ provider: "workers-ai" })).status).toBe(200);
    expect(sentText(await say("hello, Workers AI"))).toBe("echo: hello, Workers AI");
    const [request] = await fakes.requests("openai");
    expect(request!.headers.authorization).toBe("Bearer test-workers-ai-token");
    const body = bodyOf(request!);
    expect(body.model).toBe("@cf/meta/llama-3.3-70b-instruct-fp8-fast");
    expect(body.max_tokens).toBe(4096);
    expect(body.tools?.map((tool) => tool.function.name)).toContain("remember");

    expect(sentText(await say("/model", { count: 2 }))).toContain("workers-ai");
  });

  it("calls the bot's tools through function calling", async () => {
    await configure({ provider: "workers-ai", model: "@cf/meta/llama-4-scout-17b-16e-instruct" });
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "remember", arguments: { fact: "The user's cat is called Miso." } }]),
      openaiText("Noted: Miso.", { prompt_tokens: 50, completion_tokens: 3 }),
    );
    // The first message is the tool notice (⚙️ remember …), the second the answer.
    expect(sentText(await say("My cat is called Miso, remember that.", { count: 2 }))).toBe("Noted: Miso.");
    const [, second] = await fakes.requests("openai");
    const tool = bodyOf(second!).messages.find((message) => message.role === "tool");
    expect(tool?.content).toMatch(/^Remembered \(id \d+\)\.$/);
    const facts = await env.DB.prepare("SELECT content FROM memories").all();
    expect(facts.results).toEqual([{ content: "The user's cat is called Miso." }]);

    await flushUsageNow(PRIVATE_CHAT);
    const rows = await env.DB.prepare("SELECT provider, model FROM usage_records").all();
    expect(rows.results).toEqual([{ provider: "workers-ai", model: "@cf/meta/llama-4-scout-17b-16e-instruct" }]);
  });

  it("answers as the fallback, with no key of its own, when Anthropic is overloaded", async () => {
    await configure({ provider: "anthropic", model: "claude-test", fallbacks: [{ provider: "workers-ai" }] });
    const overloaded = {
      status: 529,
      headers: { "retry-after-ms": "1" },
      body: { type: "error", error: { type: "overloaded_error", message: "overloaded (fake)" } },
    };
    await fakes.script("anthropic", overloaded, overloaded, overloaded);
    expect(sentText(await say("anyone there?", { count: 2 }))).toBe("echo: anyone there?");
    const notice = (await fakes.requests("telegram", { method: "sendMessage" }))[0];
    expect(sentText(notice)).toBe(
      "↪️ claude-test is overloaded; @cf/meta/llama-3.3-70b-instruct-fp8-fast answers instead.",
    );
    expect(bodyOf((await fakes.requests("openai"))[0]!).model).toBe("@cf/meta/llama-3.3-70b-instruct-fp8-fast");
  });
});
