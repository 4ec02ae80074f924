import { env } from "cloudflare:workers";
import { Buffer } from "node:buffer";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { settingsOf } from "../../src/config/loaded-settings.ts";
import { healthReport } from "../../src/http/routes/health.ts";
import { ingestMedia } from "../../src/media/ingest.ts";
import { planMedia } from "../../src/media/load.ts";
import { ingestServicesOf } from "../../src/media/services.ts";
import { BotApi } from "../../src/telegram/bot-api.ts";
import { TINY_PNG_BASE64 } from "../fakes/server.ts";
import {
  admin,
  anthropicText,
  fakes,
  mediaUpdate,
  openaiText,
  openaiToolCalls,
  PRIVATE_CHAT,
  photoSizes,
  post,
  say,
  sentText,
  settled,
  textUpdate,
} from "./helpers.ts";

const BOT_TOKEN = "123456:TEST-TOKEN";

const setConfig = (config: unknown) =>
  admin(`/chats/${PRIVATE_CHAT}/config`, { method: "PUT", body: JSON.stringify(config) });

type OpenAIBody = { messages: { role: string; content: unknown }[] };
type AnthropicBody = { messages: { role: string; content: { type: string; [key: string]: unknown }[] }[] };

async function lastOpenAIBody(): Promise<OpenAIBody> {
  const calls = await fakes.requests("openai");
  return calls.filter((call) => call.path.endsWith("/chat/completions")).at(-1)!.body as OpenAIBody;
}

async function answer(count = 1): Promise<string> {
  const sent = await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT, count });
  return sentText(sent[count - 1]);
}

describe("photos", () => {
  it("sends a photo with its caption to OpenAI as an image part, in the largest size within the edge", async () => {
    await post(mediaUpdate({ photo: photoSizes("cat") }, { caption: "what is this?" }));
    expect(await answer()).toBe("echo: (image) what is this?");
    const user = (await lastOpenAIBody()).messages.at(-1)!;
    expect(user.content).toEqual([
      { type: "image_url", image_url: { url: `data:image/jpeg;base64,${TINY_PNG_BASE64}` } },
      { type: "text", text: "what is this?" },
    ]);
    const downloads = await fakes.requests("telegram", { method: "getFile" });
    expect(downloads.map((call) => (call.body as { file_id: string }).file_id)).toEqual(["cat-large"]);
    // Stored once in R2, by file_unique_id.
    const stored = await env.MEDIA.get("telegram/cat-large-u");
    expect(stored?.httpMetadata?.contentType).toBe("image/jpeg");
  });

  it("sends a photo to Anthropic as a base64 image block", async () => {
    await setConfig({ provider: "anthropic", model: "claude-test" });
    await fakes.script("anthropic", anthropicText("A cat."));
    await post(mediaUpdate({ photo: photoSizes("cat") }, { caption: "what is this?" }));
    expect(await answer()).toBe("A cat.");
    const body = (await fakes.requests("anthropic"))[0]!.body as AnthropicBody;
    expect(body.messages.at(-1)!.content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/jpeg", data: TINY_PNG_BASE64 } },
      { type: "text", text: "what is this?" },
    ]);
  });

  it("keeps an image in context when the chat moves from OpenAI to Anthropic", async () => {
    await post(mediaUpdate({ photo: photoSizes("dog") }, { caption: "remember this dog" }));
    await answer();
    await settled(PRIVATE_CHAT);
    await setConfig({ provider: "anthropic", model: "claude-test" });
    await fakes.script("anthropic", anthropicText("It was a dog."));
    const reply = await say("what was in the picture?", { count: 2 });
    expect(sentText(reply)).toBe("It was a dog.");
    const body = (await fakes.requests("anthropic"))[0]!.body as AnthropicBody;
    expect(body.messages[0]!.content[0]).toEqual({
      type: "image",
      source: { type: "base64", media_type: "image/jpeg", data: TINY_PNG_BASE64 },
    });
    // Downloaded once: the second turn read it from R2.
    expect(await fakes.requests("telegram", { method: "getFile" })).toHaveLength(1);
  });

  it("answers an album once, with all its photos", async () => {
    await post(mediaUpdate({ photo: photoSizes("a"), media_group_id: "album1" }, { caption: "compare these" }));
    await post(mediaUpdate({ photo: photoSizes("b"), media_group_id: "album1" }));
    await post(mediaUpdate({ photo: photoSizes("c"), media_group_id: "album1" }));
    expect(await answer()).toBe("echo: (image) (image) (image) compare these");
    await settled(PRIVATE_CHAT);
    const chatCalls = (await fakes.requests("openai")).filter((call) => call.path.endsWith("/chat/completions"));
    expect(chatCalls).toHaveLength(1);
  });

  it("shows the model only the most recent images of a turn, and says so", async () => {
    for (const id of ["p1", "p2", "p3", "p4", "p5"]) {
      await post(mediaUpdate({ photo: photoSizes(id), media_group_id: "big-album" }));
    }
    const notice = await answer();
    expect(notice).toContain("1 of yours is kept but not shown");
    expect(await answer(2)).toContain("(image) (image) (image) (image)");
    const content = (await lastOpenAIBody()).messages.at(-1)!.content as { type: string; text?: string }[];
    expect(content.filter((part) => part.type === "image_url")).toHaveLength(4);
    expect(content[0]).toEqual({ type: "text", text: expect.stringContaining("not shown again") });
  });

  it("refuses a photo over the file cap without downloading it, and tells the chat", async () => {
    await post(mediaUpdate({ photo: photoSizes("huge", { fileSize: 25 * 1024 * 1024 }) }, { caption: "look" }));
    expect(await answer()).toContain("Telegram lets bots download files up to 20 MB");
    expect(await answer(2)).toContain("could not be read");
    expect(await fakes.requests("telegram", { method: "getFile" })).toHaveLength(0);
  });

  it("refuses a file whose size only getFile tells, over the cap", async () => {
    await fakes.file({ fileId: "sneaky-large", base64: TINY_PNG_BASE64, announcedSize: 21 * 1024 * 1024 });
    await post(mediaUpdate({ photo: photoSizes("sneaky") }, { caption: "look" }));
    expect(await answer()).toContain("20 MB");
    expect(await fakes.requests("telegram", { method: "sneaky-large" })).toHaveLength(0);
  });

  it("tells the chat when its model cannot see images, and sends no image", async () => {
    await setConfig({ provider: "openai", model: "text-only" });
    await post(mediaUpdate({ photo: photoSizes("cat") }, { caption: "what is this?" }));
    expect(await answer()).toContain("can't see images");
    const reply = await answer(2);
    expect(reply).toContain("what is this?");
    expect(reply).not.toContain("(image)");
  });
});

describe("the bot token in file URLs", () => {
  const logged: string[] = [];
  beforeEach(() => {
    logged.length = 0;
    for (const level of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, level).mockImplementation((...parts: unknown[]) => {
        logged.push(
          parts.map((part) => (part instanceof Error ? `${part.message} ${part.stack}` : String(part))).join(" "),
        );
      });
    }
  });
  afterEach(() => vi.restoreAllMocks());

  it("never reaches a model request or a log, when a download works or fails", async () => {
    await fakes.script("telegram", {
      method: "getFile",
      status: 400,
      body: { ok: false, error_code: 400, description: "Bad Request: invalid file_id" },
    });
    await post(mediaUpdate({ photo: photoSizes("broken") }, { caption: "first" }));
    expect(await answer()).toContain("could not download");
    await answer(2);
    await settled(PRIVATE_CHAT);
    await post(mediaUpdate({ photo: photoSizes("fine") }, { caption: "second" }));
    expect(await answer(3)).toBe("echo: (image) second");
    await settled(PRIVATE_CHAT);

    // The download itself used the token (that is how Telegram serves files)…
    const downloads = (await fakes.requests("telegram")).filter((call) => call.path.startsWith("/telegram/file/"));
    expect(downloads[0]!.path).toContain(BOT_TOKEN);
    // …and nothing else did.
    const modelCalls = [...(await fakes.requests("openai")), ...(await fakes.requests("anthropic"))];
    expect(modelCalls.length).toBeGreaterThan(0);
    for (const call of modelCalls) {
      expect(JSON.stringify(call)).not.toContain(BOT_TOKEN);
      expect(JSON.stringify(call)).not.toContain("/file/bot");
    }
    // The failure was logged (so the spy sees the chat object's logs), without the URL.
    expect(logged.join("\n")).toContain("file download failed");
    expect(logged.join("\n")).not.toContain(BOT_TOKEN);
    expect(logged.join("\n")).not.toContain("TEST-TOKEN");
  });
});

const voice = (id: string, extra: Record<string, unknown> = {}) => ({
  voice: { file_id: id, file_unique_id: `${id}-u`, duration: 3, mime_type: "audio/ogg", file_size: 4000, ...extra },
});

describe("voice notes", () => {
  it("are transcribed through the transcription endpoint and answered from the transcript", async () => {
    await fakes.file({ fileId: "voice1", base64: Buffer.from("OggS fake opus").toString("base64") });
    await post(mediaUpdate(voice("voice1")));
    expect(await answer()).toBe(
      "echo: [a voice note, 3 s long; automatic transcript, may contain errors]: Hello from a voice note.",
    );
    const [transcription] = await fakes
      .requests("openai")
      .then((calls) => calls.filter((call) => call.path === "/openai/v1/audio/transcriptions"));
    expect(transcription!.headers.authorization).toBe("Bearer test-openai-key");
    expect(transcription!.headers["content-type"]).toContain("multipart/form-data");
    const form = String(transcription!.body);
    expect(form).toContain("gpt-4o-mini-transcribe");
    expect(form).toContain('filename="voice.ogg"');
    expect(form).toContain("OggS fake opus");
    expect(form).not.toContain(BOT_TOKEN);
    // Not quoted back unless the chat asks for it.
    expect(await fakes.requests("telegram", { method: "sendMessage" })).toHaveLength(1);
  });

  it("use Telegram's own transcript when there is one: no download, no paid call", async () => {
    await post(mediaUpdate(voice("voice2", { transcript: "Telegram heard this." })));
    expect(await answer()).toContain("automatic transcript, may contain errors]: Telegram heard this.");
    expect(await fakes.requests("telegram", { method: "getFile" })).toHaveLength(0);
    const transcriptions = (await fakes.requests("openai")).filter((call) => call.path.endsWith("/transcriptions"));
    expect(transcriptions).toHaveLength(0);
  });

  it("are quoted before the answer where the chat asked for it", async () => {
    await setConfig({ quoteTranscripts: true });
    await post(mediaUpdate(voice("voice3")));
    expect(await answer()).toBe("🎤 “Hello from a voice note.”");
    expect(await answer(2)).toContain("Hello from a voice note.");
  });

  it("say so when the transcription fails, and the turn goes on", async () => {
    await fakes.script("openai", {
      path: "/openai/v1/audio/transcriptions",
      status: 400,
      body: { error: { message: "bad audio" } },
    });
    await post(mediaUpdate(voice("voice4"), { caption: "listen" }));
    expect(await answer()).toContain("could not transcribe the voice note");
    expect(await answer(2)).toContain("could not be transcribed");
  });
});

const PDF_BASE64 = Buffer.from("%PDF-1.4 fake report").toString("base64");
const documentOf = (id: string, fileName: string, mimeType: string, fileSize = 2000) => ({
  document: { file_id: id, file_unique_id: `${id}-u`, file_name: fileName, mime_type: mimeType, file_size: fileSize },
});

describe("documents", () => {
  it("give OpenAI a PDF as a file input", async () => {
    await fakes.file({ fileId: "pdf1", base64: PDF_BASE64 });
    await post(mediaUpdate(documentOf("pdf1", "report.pdf", "application/pdf"), { caption: "summarise this" }));
    expect(await answer()).toContain("(file report.pdf) summarise this");
    const content = (await lastOpenAIBody()).messages.at(-1)!.content as unknown[];
    expect(content).toContainEqual({
      type: "file",
      file: { filename: "report.pdf", file_data: `data:application/pdf;base64,${PDF_BASE64}` },
    });
  });

  it("give Anthropic a PDF as a document block", async () => {
    await setConfig({ provider: "anthropic", model: "claude-test" });
    await fakes.script("anthropic", anthropicText("A short report."));
    await fakes.file({ fileId: "pdf2", base64: PDF_BASE64 });
    await post(mediaUpdate(documentOf("pdf2", "report.pdf", "application/pdf"), { caption: "summarise this" }));
    expect(await answer()).toBe("A short report.");
    const body = (await fakes.requests("anthropic"))[0]!.body as AnthropicBody;
    expect(body.messages.at(-1)!.content).toContainEqual({
      type: "document",
      title: "report.pdf",
      source: { type: "base64", media_type: "application/pdf", data: PDF_BASE64 },
    });
  });

  it("give a text file's contents as text", async () => {
    await fakes.file({ fileId: "csv1", base64: Buffer.from("name,age\nAda,36\n").toString("base64") });
    await post(mediaUpdate(documentOf("csv1", "people.csv", "text/csv"), { caption: "who is oldest?" }));
    const reply = await answer();
    expect(reply).toContain('[file "people.csv" (text/csv, 16 B):\nname,age\nAda,36');
    expect(reply).toContain("who is oldest?");
  });

  it("count earlier files in the window: after 8 files of 100,000 characters, a plain hi is not a huge request", async () => {
    const big = (seed: number) => `${seed} ${"lorem ipsum dolor sit amet ".repeat(3_704)}`.slice(0, 100_000);
    for (let index = 0; index < 8; index++) {
      await fakes.file({ fileId: `doc${index}`, base64: Buffer.from(big(index)).toString("base64") });
      await fakes.script("openai", openaiText(`read ${index}`));
      await post(
        mediaUpdate(documentOf(`doc${index}`, `part${index}.txt`, "text/plain", 100_000), { caption: "read" }),
      );
      await fakes.wait("openai", { count: index + 1 });
      await settled(PRIVATE_CHAT);
    }
    // The newest file of its own turn was read whole (the per-turn cap is 100,000 characters).
    const eighth = JSON.stringify((await fakes.requests("openai"))[7]!.body);
    expect(eighth.length).toBeGreaterThan(100_000);
    await fakes.script("openai", openaiText("hello"));
    await post(textUpdate("hi"));
    const [, , , , , , , , hi] = await fakes.wait("openai", { count: 9 });
    const body = JSON.stringify(hi!.body);
    // Before: 808,788 characters, every turn until /new. Now the window's budget (16,000 tokens) bounds it.
    expect(body.length).toBeLessThan(70_000);
    expect(body).toContain("an earlier file, read in full when it was sent");
  });

  it("answer a file type no model reads with a clear sentence", async () => {
    await post(mediaUpdate(documentOf("zip1", "photos.zip", "application/zip"), { caption: "what's inside?" }));
    expect(await answer()).toContain(`I can't read "photos.zip"`);
    expect(await answer(2)).toContain("a kind of file this bot cannot read");
  });

  it("refuse a document over the file cap", async () => {
    await post(
      mediaUpdate(documentOf("big1", "big.pdf", "application/pdf", 30 * 1024 * 1024), { caption: "summarise" }),
    );
    expect(await answer()).toContain('"big.pdf" is 30.0 MB');
    expect(await fakes.requests("telegram", { method: "getFile" })).toHaveLength(0);
  });
});

describe("generate_image", () => {
  it("draws through the images API and ends in a sendPhoto", async () => {
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "generate_image", arguments: { prompt: "a cat in a hat", size: "1024x1024" } }]),
      openaiText("Here is your cat."),
    );
    const reply = await say("draw a cat", { count: 2 });
    expect(sentText(reply)).toContain("Here is your cat.");
    const [generation] = (await fakes.requests("openai")).filter((call) => call.path.endsWith("/images/generations"));
    expect(generation!.body).toEqual({ model: "gpt-image-test", prompt: "a cat in a hat", n: 1, size: "1024x1024" });
    const [photo] = await fakes.wait("telegram", { method: "sendPhoto" });
    expect(photo!.headers["content-type"]).toContain("multipart/form-data");
    expect(photo!.body).toMatchObject({ chat_id: PRIVATE_CHAT, photo: { file: "image.png" } });
    // Kept like incoming media, and the model was told so.
    const listed = await env.MEDIA.list({ prefix: "generated/" });
    expect(listed.objects).toHaveLength(1);
    const toolResult = (await lastOpenAIBody()).messages.find((message) => message.role === "tool");
    expect(String(toolResult?.content)).toContain("sent to the chat as a photo");
  });

  it("reports a refusal of the images API to the model, and sends no photo", async () => {
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "generate_image", arguments: { prompt: "something refused" } }]),
      { path: "/openai/v1/images/generations", status: 400, body: { error: { message: "content policy" } } },
      openaiText("I could not draw that."),
    );
    expect(sentText(await say("draw something", { count: 2 }))).toContain("I could not draw that.");
    const toolResult = (await lastOpenAIBody()).messages.find((message) => message.role === "tool");
    expect(String(toolResult?.content)).toContain("content policy");
    expect(await fakes.requests("telegram", { method: "sendPhoto" })).toHaveLength(0);
  });
});

describe("without the MEDIA bucket (R2 not switched on)", () => {
  const withoutBucket = () => {
    const { MEDIA: _bucket, ...rest } = env;
    return { ...rest } as typeof env;
  };
  const api = () => new BotApi(BOT_TOKEN, { apiRoot: `${env.FAKES_URL}/telegram`, timeoutSeconds: 30 });

  it("/health lists kept originals as off, with why, and is not a problem", () => {
    const report = healthReport(withoutBucket());
    expect(report.problems.join("\n")).not.toContain("MEDIA");
    expect(report.off).toContainEqual({
      feature: "kept originals of photos, voice notes and files",
      why: expect.stringContaining("R2 is not switched on for the account"),
    });
  });

  it("a photo is referred to by its Telegram file, nothing is downloaded when it arrives, and a turn reads it from Telegram", async () => {
    const services = ingestServicesOf(undefined, settingsOf(env), api());
    const result = await ingestMedia(
      services,
      [
        {
          kind: "photo",
          mediaType: "image/png",
          sizes: [{ fileId: "p-file", fileUniqueId: "pu", width: 10, height: 10 }],
        },
      ],
      {
        refusal: () => undefined,
        record: () => undefined,
        reserve: () => ({ held: { settle: () => undefined, release: () => undefined } }),
      },
    );
    expect(result.notices).toEqual([]);
    expect(result.attachments).toEqual([expect.objectContaining({ kind: "image", key: "telegram-file/p-file" })]);
    expect(await fakes.requests("telegram", { method: "getFile" })).toHaveLength(0);

    const plan = await planMedia({
      shelf: services.shelf,
      history: [{ role: "user", content: "what is this?", attachments: result.attachments }],
      newFrom: 0,
      model: "gpt-test",
      media: settingsOf(env).media,
      textRoom: 10_000,
    });
    expect(plan.library.get("telegram-file/p-file")).toEqual({ kind: "inline", base64: TINY_PNG_BASE64 });
    const getFile = await fakes.requests("telegram", { method: "getFile" });
    expect(getFile.map((call) => (call.body as { file_id: string }).file_id)).toEqual(["p-file"]);
  });
});
