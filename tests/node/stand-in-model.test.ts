import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { multipartFields } from "../../scripts/read-body.ts";
import { oggOpusComments, silentOggOpus } from "../../scripts/stand-in-model/ogg-opus.ts";
import { type ChatMessage, FOOTER, STAND_IN_MODEL, standInReply } from "../../scripts/stand-in-model/replies.ts";
import { type StandInModel, startStandInModel } from "../../scripts/stand-in-model/server.ts";

let model: StandInModel;
beforeEach(async () => {
  model = await startStandInModel();
});
afterEach(async () => {
  await model.close();
});

const tools = [
  { type: "function", function: { name: "remember" } },
  { type: "function", function: { name: "recall" } },
];

async function complete(body: object): Promise<Response> {
  return fetch(`${model.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer stand-in" },
    body: JSON.stringify({ model: STAND_IN_MODEL, ...body }),
  });
}

describe("the stand-in model", () => {
  it("answers as a Chat Completions API, and says it is a stand-in and how to add a key", async () => {
    const response = await complete({ messages: [{ role: "user", content: "hello" }] });
    const body = (await response.json()) as { choices: { message: { content: string }; finish_reason: string }[] };
    expect(body.choices[0]!.finish_reason).toBe("stop");
    const text = body.choices[0]!.message.content;
    expect(text).toContain("stand-in model");
    expect(text).toContain(FOOTER);
    expect(FOOTER).toContain("OPENAI_API_KEY");
  });

  it("calls the bot's tools when they are offered, and reads their result back", async () => {
    const call = (await (
      await complete({ messages: [{ role: "user", content: "remember that my bike is blue" }], tools })
    ).json()) as {
      choices: { message: { tool_calls: { id: string; function: { name: string; arguments: string } }[] } }[];
    };
    const [toolCall] = call.choices[0]!.message.tool_calls;
    expect(toolCall!.function).toEqual({ name: "remember", arguments: JSON.stringify({ fact: "my bike is blue" }) });
    const after = standInReply(
      [
        { role: "user", content: "remember that my bike is blue" },
        { role: "assistant", tool_calls: [toolCall!] },
        { role: "tool", tool_call_id: toolCall!.id, content: "Remembered (#1)." },
      ],
      ["remember"],
    );
    expect(after).toEqual({ kind: "text", text: expect.stringContaining("Remembered (#1).") });
    // Not offered (a chat's allowlist): it explains instead of calling.
    expect(standInReply([{ role: "user", content: "remember that x" }], []).kind).toBe("text");
  });

  it("keeps what a person says about themselves with them, and suggests a dinner from what the prompt knows of them", () => {
    expect(standInReply([{ role: "user", content: "I'm vegetarian and my daughter Mia is 7" }], ["remember"])).toEqual({
      kind: "tool",
      name: "remember",
      arguments: {
        fact: 'The person said about themselves: "I\'m vegetarian and my daughter Mia is 7"',
        scope: "person",
      },
    });
    // A question is not a statement about oneself.
    expect(standInReply([{ role: "user", content: "I'm hungry, what now?" }], ["remember"]).kind).toBe("text");
    const system = [
      "You are Testbot.",
      "The people speaking to you now, and what you remember of each (…):",
      '- "Ada" (user id 1001):',
      '  - #1 The person said about themselves: "I\'m vegetarian and my daughter Mia is 7"',
    ].join("\n");
    const dinner = standInReply(
      [
        { role: "system", content: system },
        { role: "user", content: "Ada: @testbot suggest a dinner for tonight" },
      ],
      ["remember"],
    );
    expect(dinner).toEqual({ kind: "text", text: expect.stringContaining("vegetarian and my daughter Mia is 7") });
  });

  it("schedules a reminder a minute ahead, and answers the task when it runs", () => {
    const now = new Date("2026-11-23T10:00:00Z");
    expect(standInReply([{ role: "user", content: "remind me to stretch" }], ["schedule_task"], now)).toEqual({
      kind: "tool",
      name: "schedule_task",
      arguments: { prompt: "Remind the user to stretch.", at: "2026-11-23T10:01:00Z" },
    });
    const run = standInReply(
      [
        {
          role: "user",
          content:
            "[Scheduled task #3, running now; the user is not waiting at the keyboard]\nRemind the user to stretch.",
        },
      ],
      [],
    );
    expect(run).toEqual({ kind: "text", text: expect.stringContaining("⏰ Time to stretch!") });
  });

  it("streams its answer in pieces over about a second, ending with [DONE]", async () => {
    const started = Date.now();
    const response = await complete({ stream: true, messages: [{ role: "user", content: "show me a table" }] });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const events = (await response.text()).split("\n\n").filter((event) => event.startsWith("data: "));
    expect(events.at(-1)).toBe("data: [DONE]");
    const text = events
      .slice(0, -1)
      .map(
        (event) =>
          (JSON.parse(event.slice(6)) as { choices: { delta: { content?: string } }[] }).choices[0]!.delta.content ??
          "",
      )
      .join("");
    expect(text).toContain("| Tool | What it does | Data |");
    expect(events.length).toBeGreaterThan(5);
    expect(Date.now() - started).toBeGreaterThan(500);
  });

  it("speaks a silent OGG/Opus voice message, and 'hears' the text a playground voice note carries", async () => {
    const speech = await fetch(`${model.url}/audio/speech`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "gpt-4o-mini-tts",
        voice: "coral",
        input: "Hello there.",
        response_format: "opus",
      }),
    });
    const audio = new Uint8Array(await speech.arrayBuffer());
    expect(speech.headers.get("content-type")).toBe("audio/ogg");
    expect(new TextDecoder().decode(audio.subarray(0, 4))).toBe("OggS");

    const note = silentOggOpus({ seconds: 2, comments: { TRANSCRIPT: "what time is it?" } });
    const form = new FormData();
    form.append("file", new File([note], "voice.ogg", { type: "audio/ogg" }));
    form.append("model", "gpt-4o-mini-transcribe");
    const heard = await fetch(`${model.url}/audio/transcriptions`, { method: "POST", body: form });
    expect(await heard.json()).toEqual({ text: "what time is it?" });
  });
});

/** A tool call and its result, as the OpenAI adapter sends them back. */
function called(id: string, name: string, args: object, result: string): ChatMessage[] {
  return [
    { role: "assistant", tool_calls: [{ id, function: { name, arguments: JSON.stringify(args) } }] },
    { role: "tool", tool_call_id: id, content: result },
  ];
}

describe("the stand-in model looking things up", () => {
  const question = "what's new with the Bot API this week?";
  // As src/tools/web-search.ts lists results.
  const results = [
    'Web results for "Bot API news this week" (snippets only; read a page with web_fetch):',
    "1. Rich messages: tables, task lists and math in bot answers (stand-in search)",
    "   http://127.0.0.1:9/pages/rich-messages",
    "   2026-11-14 · sendRichMessage takes GitHub-flavoured Markdown or HTML.",
    "2. Bot API changelog: the latest releases (stand-in search)",
    "   http://127.0.0.1:9/pages/bot-api-changelog",
    "   2026-11-21 · Bot API 10.3 adds a stop control to drafts; news of the week.",
    "3. About these results: a local stand-in, not the web (stand-in search)",
    "   http://127.0.0.1:9/pages/about",
    "   (no snippet)",
  ].join("\n");
  const searched = called("call_1", "web_search", { query: "Bot API news this week" }, results);
  const page = [
    "http://127.0.0.1:9/pages/bot-api-changelog",
    "",
    "Bot API changelog: the latest releases (stand-in search)",
    "Bot API changelog: the latest releases",
    "Bot API 10.3 adds a stop control to drafts (can_stop, keep_on_stop).",
    "Bot API 10.3",
    "- Pressing it sends a stopped_message_generation update.",
  ].join("\n");

  it("searches the web for news, reads the result that matches best, and answers with links", () => {
    const web = ["web_search", "web_fetch"];
    expect(standInReply([{ role: "user", content: question }], web)).toEqual({
      kind: "tool",
      name: "web_search",
      arguments: { query: "Bot API news this week" },
    });
    // The second result shares more of the query's words (bot, api, news, week) than the first.
    expect(standInReply([{ role: "user", content: question }, ...searched], web)).toEqual({
      kind: "tool",
      name: "web_fetch",
      arguments: { url: "http://127.0.0.1:9/pages/bot-api-changelog" },
    });
    const fetched = called("call_2", "web_fetch", { url: "http://127.0.0.1:9/pages/bot-api-changelog" }, page);
    const answer = standInReply([{ role: "user", content: question }, ...searched, ...fetched], web);
    if (answer.kind !== "text") throw new Error("expected an answer");
    expect(answer.text).toContain(
      "**[Bot API changelog: the latest releases (stand-in search)](http://127.0.0.1:9/pages/bot-api-changelog)** · 2026-11-21",
    );
    expect(answer.text).toContain("- Bot API 10.3 adds a stop control to drafts (can\\_stop, keep\\_on\\_stop).");
    expect(answer.text).toContain(
      "- [About these results: a local stand-in, not the web (stand-in search)](http://127.0.0.1:9/pages/about)",
    );
    expect(answer.text).toContain(FOOTER);
    // The page's title is not repeated as one of its lines.
    expect(answer.text.match(/Bot API changelog: the latest releases/g)).toHaveLength(1);
  });

  it("answers from the results when web_fetch is off, says why when web_search is not offered, and tells a failure", () => {
    const listed = standInReply([{ role: "user", content: question }, ...searched], ["web_search"]);
    expect(listed).toEqual({
      kind: "text",
      text: expect.stringContaining("](http://127.0.0.1:9/pages/rich-messages)"),
    });
    const unoffered = standInReply([{ role: "user", content: "search the web for cheap flights" }], []);
    expect(unoffered).toEqual({ kind: "text", text: expect.stringContaining("no search backend is configured") });
    const failed = called(
      "call_2",
      "web_fetch",
      { url: "http://127.0.0.1:9/pages/bot-api-changelog" },
      "Error: 127.0.0.1:9 is not fetched: a private address.",
    );
    const answer = standInReply(
      [{ role: "user", content: question }, ...searched, ...failed],
      ["web_search", "web_fetch"],
    );
    expect(answer).toEqual({
      kind: "text",
      text: expect.stringContaining("It could not be read: 127.0.0.1:9 is not fetched"),
    });
  });

  it("takes what to search for from the question", () => {
    const query = (said: string) => standInReply([{ role: "user", content: said }], ["web_search"]);
    expect(query("Search the web for Durable Object alarms.")).toMatchObject({
      arguments: { query: "Durable Object alarms" },
    });
    expect(query("what is new in Cloudflare Workers?")).toMatchObject({
      arguments: { query: "Cloudflare Workers news" },
    });
    expect(query("latest news about grammY today")).toMatchObject({ arguments: { query: "grammY news today" } });
  });

  const asked = "what did I say my locker code was?";
  // As src/tools/history-search.ts lists hits: the question itself and the stand-in's echo match too.
  const hits = [
    '3 messages matching "locker code" (best first; times in Europe/Berlin):',
    `[#41 · 2026-11-23 11:02 · user] ${asked}`,
    "[#1 · 2026-03-14 10:22 · user] my locker code is 4711",
    "[#2 · 2026-03-14 10:22 · assistant] You said: “my locker code is 4711”. I cannot think about it",
  ].join("\n");

  it("searches the chat's history with the question's telling words, and quotes the message with its date and sender", () => {
    expect(standInReply([{ role: "user", content: asked }], ["search_history", "recall"])).toEqual({
      kind: "tool",
      name: "search_history",
      arguments: { query: "locker code" },
    });
    const found = called("call_1", "search_history", { query: "locker code" }, hits);
    const answer = standInReply([{ role: "user", content: asked }, ...found], ["search_history"]);
    if (answer.kind !== "text") throw new Error("expected an answer");
    expect(answer.text).toContain("on 2026-03-14 at 10:22 (Europe/Berlin) you said:");
    expect(answer.text).toContain("> my locker code is 4711");
    expect(answer.text).toContain("message #1 ");
    // In a group the bot sees "Name: text": the name says who said it.
    const inGroup = called(
      "call_1",
      "search_history",
      { query: "locker code" },
      '1 message matching "locker code" (best first; times in UTC):\n[#7 · 2026-03-14 10:22 · user] Alice: my locker code is 4711',
    );
    const group = standInReply([{ role: "user", content: `Bob: ${asked}` }, ...inGroup], ["search_history"]);
    expect(group).toEqual({
      kind: "text",
      text: expect.stringContaining("**Alice** said:\n\n> my locker code is 4711"),
    });
    const none = called(
      "call_1",
      "search_history",
      { query: "locker code" },
      'No message in this chat matches "locker code".',
    );
    expect(standInReply([{ role: "user", content: asked }, ...none], ["search_history"])).toEqual({
      kind: "text",
      text: expect.stringContaining("found no message about it"),
    });
    // A question without a topic is still recall's.
    expect(
      standInReply([{ role: "user", content: "what did I tell you?" }], ["search_history", "recall"]),
    ).toMatchObject({
      name: "recall",
    });
  });
});

describe("ogg-opus and multipart helpers", () => {
  it("round-trips OGG comments and parses grammY's compact multipart with attach:// references", () => {
    expect(oggOpusComments(silentOggOpus({ seconds: 1, comments: { TRANSCRIPT: "ünïcode ✓" } }))).toEqual({
      TRANSCRIPT: "ünïcode ✓",
    });
    const boundary = "b0undary";
    const body = Buffer.from(
      `--${boundary}\r\ncontent-disposition:form-data;name="chat_id"\r\n\r\n5\r\n` +
        `--${boundary}\r\ncontent-disposition:form-data;name="voice"\r\n\r\nattach://f1\r\n` +
        `--${boundary}\r\ncontent-disposition:form-data;name="f1";filename=answer.ogg\r\ncontent-type:audio/ogg\r\n\r\nOggS\x00\x01\r\n` +
        `--${boundary}--\r\n`,
      "latin1",
    );
    const fields = multipartFields(`multipart/form-data; boundary=${boundary}`, body);
    expect(fields.chat_id).toBe("5");
    expect(fields.voice).toEqual({
      fileName: "answer.ogg",
      type: "audio/ogg",
      bytes: new Uint8Array([79, 103, 103, 83, 0, 1]),
    });
    expect(fields.f1).toBeUndefined();
  });
});
