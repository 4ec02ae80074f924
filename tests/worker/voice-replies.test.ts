import { runInDurableObject } from "cloudflare:test";
import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import { spendSlot } from "../../src/budget/spend-slot.ts";
import type { RecordedFile, RecordedRequest } from "../fakes/server.ts";
import {
  admin,
  fakes,
  GROUP_CHAT,
  mediaUpdate,
  OTHER_PRIVATE_CHAT,
  openaiText,
  PRIVATE_CHAT,
  post,
  say,
  sentText,
  session,
  settled,
} from "./helpers.ts";

const setConfig = (config: unknown, chatId = PRIVATE_CHAT) =>
  admin(`/chats/${chatId}/config`, { method: "PUT", body: JSON.stringify(config) });

type SpeechBody = { model: string; input: string; voice: string; response_format: string; instructions?: string };

async function speechRequests(): Promise<SpeechBody[]> {
  const calls = await fakes.requests("openai");
  return calls.filter((call) => call.path.endsWith("/audio/speech")).map((call) => call.body as SpeechBody);
}

function voiceFile(request: RecordedRequest | undefined): RecordedFile {
  const file = request?.form?.voice;
  if (!file || typeof file === "string") throw new Error("sendVoice carried no voice file");
  return file;
}

async function sentLines(chatId = PRIVATE_CHAT): Promise<string[]> {
  return (await fakes.requests("telegram", { method: "sendMessage", chatId })).map(sentText);
}

const voiceNote = (id: string) => ({
  voice: { file_id: id, file_unique_id: `${id}-u`, duration: 2, mime_type: "audio/ogg", file_size: 900 },
});

describe("voice replies", () => {
  it("always: the answer's text, then the same answer spoken as OGG/Opus through sendVoice, counted", async () => {
    await setConfig({ voiceReplies: "always" });
    const answer = "This is the answer you asked for, and it is in English.";
    await fakes.script("openai", openaiText(answer));
    const reply = await say("hello there");
    expect(sentText(reply)).toBe(answer);
    const [sent] = await fakes.wait("telegram", { method: "sendVoice", chatId: PRIVATE_CHAT });
    const file = voiceFile(sent);
    expect(file).toMatchObject({ fileName: "answer.ogg", magic: "OggS" });
    expect(file.size).toBeGreaterThan(100);
    expect(sent!.form?.chat_id).toBe(String(PRIVATE_CHAT));
    // Nothing is only audible: the text came first, and a whole answer needs no caption.
    expect(sent!.at).toBeGreaterThanOrEqual(reply.at);
    expect(sent!.form?.caption).toBeUndefined();
    const [speech] = await speechRequests();
    expect(speech).toMatchObject({
      model: "gpt-4o-mini-tts",
      voice: "coral",
      response_format: "opus",
      input: answer,
    });
    expect(speech!.instructions).toContain("in English");
    await settled(PRIVATE_CHAT);
    const spend = await runInDurableObject(session(PRIVATE_CHAT), (instance) => instance.stores.meta.get(spendSlot));
    expect(spend?.units?.speech).toBe(answer.length);
  });

  it("when-spoken-to: a written message gets text only, a voice note gets a voice answer too", async () => {
    await setConfig({ voiceReplies: "when-spoken-to" });
    await say("written");
    await settled(PRIVATE_CHAT);
    expect(await fakes.requests("telegram", { method: "sendVoice" })).toHaveLength(0);
    await fakes.file({ fileId: "spoken1", base64: Buffer.from("OggS fake opus").toString("base64") });
    await post(mediaUpdate(voiceNote("spoken1")));
    const [sent] = await fakes.wait("telegram", { method: "sendVoice", chatId: PRIVATE_CHAT });
    expect(voiceFile(sent).magic).toBe("OggS");
    expect((await speechRequests())[0]!.input).toContain("Hello from a voice note.");
  });

  it("off (the default): no speech at all", async () => {
    await say("quiet please");
    await settled(PRIVATE_CHAT);
    expect(await speechRequests()).toHaveLength(0);
    expect(await fakes.requests("telegram", { method: "sendVoice" })).toHaveLength(0);
  });

  it("speaks Markdown as prose: no marks read out, a code block and a table named instead", async () => {
    await setConfig({ voiceReplies: "always" });
    await fakes.script(
      "openai",
      openaiText(
        "## Steps\n\n**First**, run `npm install` and see [the guide](https://example.com/guide).\n\n" +
          "```python\nprint('hi')\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n- one\n- two",
      ),
    );
    await say("how?");
    await fakes.wait("telegram", { method: "sendVoice" });
    expect((await speechRequests())[0]!.input).toBe(
      "Steps.\n\nFirst, run npm install and see the guide.\n\nThe written answer shows Python code here.\n\n" +
        "The written answer has a table here, with 2 rows.\n\none.\ntwo.",
    );
  });

  it("speaks a long answer in part, at a sentence, and says so in the caption", async () => {
    await setConfig({ voiceReplies: "always" });
    const long = Array.from({ length: 120 }, (_, index) => `This is sentence number ${index + 1}.`).join(" ");
    await fakes.script("openai", openaiText(long));
    await say("tell me everything");
    const [sent] = await fakes.wait("telegram", { method: "sendVoice" });
    const spoken = (await speechRequests())[0]!.input;
    expect(spoken.length).toBeLessThanOrEqual(1500);
    expect(spoken.endsWith(".")).toBe(true);
    expect(sent!.form?.caption).toBe(
      `🔊 The first ${spoken.length.toLocaleString("en-US")} of ${long.length.toLocaleString("en-US")} characters, spoken; the whole answer is in the text above.`,
    );
  });

  it("a chat over its speech allowance gets the text and one line why, and no speech call", async () => {
    await setConfig({ voiceReplies: "always", limits: { speechCharactersPerDay: 5 } });
    await say("hello again");
    const [, line] = await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT, count: 2 });
    expect(sentText(line)).toBe(
      "🔇 Not spoken: This chat has used today's allowance of 5 characters of speech; it renews at midnight.",
    );
    expect(await speechRequests()).toHaveLength(0);
    expect(await fakes.requests("telegram", { method: "sendVoice" })).toHaveLength(0);
  });

  it("a failing or refusing speech service: the text stands, one line says why, nothing is counted", async () => {
    await setConfig({ voiceReplies: "always" });
    await fakes.script(
      "openai",
      { path: "/openai/v1/audio/speech", status: 500, body: { error: { message: "boom", type: "server_error" } } },
      { path: "/openai/v1/audio/speech", status: 401, body: { error: { message: "Incorrect API key provided" } } },
    );
    await say("first");
    const [, first] = await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT, count: 2 });
    expect(sentText(first)).toBe(
      "🔇 The spoken version failed: the speech service failed. The answer is in the text above.",
    );
    await settled(PRIVATE_CHAT);
    await say("second", { count: 3 });
    const [, , , second] = await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT, count: 4 });
    expect(sentText(second)).toContain("the speech service refused the bot's key");
    await settled(PRIVATE_CHAT);
    const spend = await runInDurableObject(session(PRIVATE_CHAT), (instance) => instance.stores.meta.get(spendSlot));
    expect(spend?.units?.speech).toBeUndefined();
    expect(await fakes.requests("telegram", { method: "sendVoice" })).toHaveLength(0);
  });

  it("a failed turn is not spoken", async () => {
    await setConfig({ voiceReplies: "always" });
    await fakes.script("openai", { status: 400, body: { error: { message: "bad request" } } });
    await say("break");
    await settled(PRIVATE_CHAT);
    expect(await speechRequests()).toHaveLength(0);
  });
});

describe("/voice", () => {
  const voiceConfig = async (chatId = PRIVATE_CHAT) => {
    const response = await admin(`/chats/${chatId}/config`);
    if (response.status === 404) return undefined;
    return ((await response.json()) as { config: { voiceReplies?: string } }).config.voiceReplies;
  };

  it("toggles spoken answers for the chat, and sets a mode by name", async () => {
    expect(sentText(await say("/voice"))).toContain("Every answer now also comes as a voice message");
    expect(await voiceConfig()).toBe("always");
    expect(sentText(await say("/voice", { count: 2 }))).toContain("Spoken answers are off");
    expect(await voiceConfig()).toBe("off");
    expect(sentText(await say("/voice when-spoken-to", { count: 3 }))).toContain(
      "A voice note now gets a spoken answer",
    );
    expect(await voiceConfig()).toBe("when-spoken-to");
    expect(sentText(await say("/voice loudly", { count: 4 }))).toContain("Usage: /voice");
    expect(await voiceConfig()).toBe("when-spoken-to");
  });

  it("in a private chat the person may change it; in a group only an admin may", async () => {
    expect(sentText(await say("/voice on", { chatId: OTHER_PRIVATE_CHAT }))).toContain("Every answer");
    expect(await voiceConfig(OTHER_PRIVATE_CHAT)).toBe("always");
    const refused = await say("/voice on", { chatId: GROUP_CHAT, fromId: OTHER_PRIVATE_CHAT });
    expect(sentText(refused)).toContain("only the bot's admins can change spoken answers");
    expect(await voiceConfig(GROUP_CHAT)).toBeUndefined();
    await say("/voice on", { chatId: GROUP_CHAT, fromId: PRIVATE_CHAT, count: 2 });
    expect(await voiceConfig(GROUP_CHAT)).toBe("always");
  });

  it("keeps the chat's other settings", async () => {
    await setConfig({ systemPrompt: "Be brief." });
    await say("/voice always");
    const stored = (await (await admin(`/chats/${PRIVATE_CHAT}/config`)).json()) as { config: unknown };
    expect(stored.config).toEqual({ systemPrompt: "Be brief.", voiceReplies: "always" });
    expect(await sentLines()).toHaveLength(1);
  });
});
