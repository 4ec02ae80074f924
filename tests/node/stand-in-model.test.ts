import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { multipartFields } from "../../scripts/read-body.ts";
import { oggOpusComments, silentOggOpus } from "../../scripts/stand-in-model/ogg-opus.ts";
import { FOOTER, STAND_IN_MODEL, standInReply } from "../../scripts/stand-in-model/replies.ts";
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
