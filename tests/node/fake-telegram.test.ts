import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { type Fakes, type ScriptedResponse, startFakes, type TelegramReport } from "../fakes/server.ts";

/**
 * The fake Telegram itself: that it refuses what Telegram refuses, in Telegram's words, keeps messages as Telegram
 * does, records what the Bot API does not know, and switches as tests need. Formatted texts need TDLib's parser;
 * where it cannot load, those tests are skipped with the reason.
 */
const fakes: Fakes = await startFakes();
if (!fakes.tdlib.available) console.warn(`[fake telegram] parsing tests skipped: ${fakes.tdlib.reason}`);
afterAll(() => fakes.close());
afterEach(async () => {
  await fetch(`${fakes.url}/__control/reset`, { method: "POST" });
});

const PRIVATE = 1001;
const GROUP = -2001;
const tdlib = () => fakes.tdlib.available;

interface Answer {
  status: number;
  ok: boolean;
  result?: { message_id: number; text?: string; entities?: unknown[] } & Record<string, unknown>;
  description?: string;
  parameters?: { retry_after?: number };
}

async function call(method: string, params: Record<string, unknown> = {}): Promise<Answer> {
  const response = await fetch(`${fakes.url}/telegram/bot123:TEST/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(params),
  });
  return { status: response.status, ...((await response.json()) as Omit<Answer, "status">) };
}

async function description(method: string, params: Record<string, unknown>): Promise<string | undefined> {
  return (await call(method, params)).description;
}

async function control(switches?: Record<string, unknown>): Promise<TelegramReport> {
  const response = await fetch(`${fakes.url}/__control/telegram`, {
    method: switches ? "POST" : "GET",
    ...(switches ? { body: JSON.stringify(switches) } : {}),
  });
  return (await response.json()) as TelegramReport;
}

async function sent(text: string, extra: Record<string, unknown> = {}): Promise<number> {
  const answer = await call("sendMessage", { chat_id: PRIVATE, text, ...extra });
  expect(answer.ok, answer.description).toBe(true);
  return answer.result!.message_id;
}

describe("methods and fields", () => {
  it("answers a method the Bot API does not have with 404 and records it, like a field it does not know", async () => {
    expect(await call("sendTelepathy", { chat_id: PRIVATE })).toEqual({
      status: 404,
      ok: false,
      error_code: 404,
      description: "Not Found",
    });
    const ok = await call("sendMessage", {
      chat_id: PRIVATE,
      text: "hi",
      disable_web_preview: true,
      reply_markup: { inline_keyboard: [[{ text: "a", callbak_data: "x", callback_data: "y" }]] },
      link_preview_options: { is_disabled: true, disabled: true },
    });
    expect(ok.ok).toBe(true);
    expect((await control()).violations.map((violation) => violation.text)).toEqual([
      "sendTelepathy: unknown method",
      "sendMessage: unknown field disable_web_preview",
      "sendMessage: unknown field reply_markup.inline_keyboard[0][0].callbak_data",
      "sendMessage: unknown field link_preview_options.disabled",
    ]);
  });

  it("matches method names without regard to case, as Telegram does, and records a missing required field", async () => {
    expect((await call("SENDMESSAGE", { chat_id: PRIVATE, text: "x" })).ok).toBe(true);
    // sendMessage's chat_id is optional since Bot API 10.4 (an ephemeral reply to a button press names none).
    expect(await description("sendMessage", { text: "x" })).toBe("Bad Request: chat_id is empty");
    expect(await description("sendChatAction", { action: "typing" })).toBe("Bad Request: chat_id is empty");
    expect((await control()).violations.map((violation) => violation.text)).toEqual([
      "sendChatAction: missing field chat_id",
    ]);
  });

  it("refuses a chat action it does not know and a chat id that names no chat", async () => {
    expect(await description("sendChatAction", { chat_id: PRIVATE, action: "dancing" })).toBe(
      "Bad Request: wrong parameter action in request",
    );
    expect(await description("sendMessage", { chat_id: "@nobody", text: "x" })).toBe("Bad Request: chat not found");
    expect((await call("sendChatAction", { chat_id: String(PRIVATE), action: "typing" })).ok).toBe(true);
    const react = (emoji: string) =>
      description("setMessageReaction", { chat_id: PRIVATE, message_id: 1, reaction: [{ type: "emoji", emoji }] });
    expect(await react("👀")).toBeUndefined();
    expect(await react("🦆")).toBe("Bad Request: REACTION_INVALID");
  });

  it("reads a multipart upload as grammY sends it, the file named by attach://", async () => {
    const body =
      '--b\r\ncontent-disposition:form-data;name="chat_id"\r\n\r\n1001\r\n' +
      '--b\r\ncontent-disposition:form-data;name="photo"\r\n\r\nattach://f1\r\n' +
      '--b\r\ncontent-disposition:form-data;name="reply_markup"\r\n\r\n{"inline_keyboard":[]}\r\n' +
      '--b\r\ncontent-disposition:form-data;name="f1";filename=cat.png\r\ncontent-type:image/png\r\n\r\n\x89PNG\r\n--b--\r\n';
    const response = await fetch(`${fakes.url}/telegram/bot123:TEST/sendPhoto`, {
      method: "POST",
      headers: { "content-type": "multipart/form-data; boundary=b" },
      body,
    });
    expect(response.status).toBe(200);
    const [photo] = fakes.requests.filter((request) => request.method === "sendPhoto");
    expect(photo!.body).toEqual({
      chat_id: PRIVATE,
      photo: { file: "cat.png", size: 5 },
      reply_markup: { inline_keyboard: [] },
    });
    expect((await control()).violations).toEqual([]);
  });
});

describe.skipIf(!tdlib())("texts, parsed by TDLib's own parser", () => {
  it("refuses markup Telegram cannot parse, with TDLib's words", async () => {
    expect(await description("sendMessage", { chat_id: PRIVATE, text: "<b>open", parse_mode: "HTML" })).toBe(
      "Bad Request: can't parse entities: Can't find end tag corresponding to start tag \"b\"",
    );
    expect(await description("sendMessage", { chat_id: PRIVATE, text: "a < b", parse_mode: "HTML" })).toBe(
      'Bad Request: can\'t parse entities: Unsupported start tag "" at byte offset 2',
    );
    expect(await description("sendMessage", { chat_id: PRIVATE, text: "v1.5", parse_mode: "MarkdownV2" })).toBe(
      "Bad Request: can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'",
    );
    expect(await description("sendMessage", { chat_id: PRIVATE, text: "x", parse_mode: "html5" })).toBe(
      "Bad Request: unsupported parse_mode",
    );
    expect(await description("sendMessage", { chat_id: PRIVATE, text: "half \ud83d", parse_mode: "HTML" })).toBe(
      "Bad Request: text must be encoded in UTF-8",
    );
  });

  it("refuses an empty text, before and after parsing, and an empty code block", async () => {
    expect(await description("sendMessage", { chat_id: PRIVATE, text: "" })).toBe("Bad Request: message text is empty");
    for (const text of [
      "<pre></pre>",
      "<b> </b>\n ",
      '<pre><code class="language-a-very-long-info-string"></code></pre>',
    ]) {
      expect(await description("sendMessage", { chat_id: PRIVATE, text, parse_mode: "HTML" })).toBe(
        "Bad Request: text must be non-empty",
      );
    }
    expect(await description("sendMessage", { chat_id: PRIVATE, text: " \n\t " })).toBe(
      "Bad Request: text must be non-empty",
    );
  });

  it("counts the limits after parsing: 4,096 for a message, 1,024 for a caption", async () => {
    expect(
      (await call("sendMessage", { chat_id: PRIVATE, text: `<b>${"x".repeat(4096)}</b>`, parse_mode: "HTML" })).ok,
    ).toBe(true);
    expect(await description("sendMessage", { chat_id: PRIVATE, text: "x".repeat(4097) })).toBe(
      "Bad Request: message is too long",
    );
    expect(await description("sendMessage", { chat_id: PRIVATE, text: "x".repeat(32_769) })).toBe(
      "Bad Request: text is too long",
    );
    const id = await sent("short");
    expect(await description("editMessageText", { chat_id: PRIVATE, message_id: id, text: "x".repeat(4097) })).toBe(
      "Bad Request: MESSAGE_TOO_LONG",
    );
    expect(
      (await call("sendPhoto", { chat_id: PRIVATE, photo: "https://example.com/a.png", caption: "y".repeat(1024) })).ok,
    ).toBe(true);
    expect(
      await description("sendPhoto", {
        chat_id: PRIVATE,
        photo: "https://example.com/a.png",
        caption: "y".repeat(1025),
      }),
    ).toBe("Bad Request: message caption is too long");
  });

  it("keeps the text as Telegram shows it, trimmed, with its entities", async () => {
    const answer = await call("sendMessage", { chat_id: PRIVATE, text: "\n <b>hi</b> there \n", parse_mode: "HTML" });
    expect(answer.result).toMatchObject({ text: "hi there", entities: [{ type: "bold", offset: 0, length: 2 }] });
  });
});

describe("messages kept per chat", () => {
  it("answers edits and deletions of messages it does not have, and edits that change nothing, as Telegram does", async () => {
    expect(await description("editMessageText", { chat_id: PRIVATE, message_id: 99_999, text: "x" })).toBe(
      "Bad Request: message to edit not found",
    );
    const id = await sent("one", { reply_markup: { inline_keyboard: [[{ text: "Stop", callback_data: "stop" }]] } });
    // Another chat does not have it.
    expect(await description("editMessageText", { chat_id: GROUP, message_id: id, text: "x" })).toBe(
      "Bad Request: message to edit not found",
    );
    const keyboard = { inline_keyboard: [[{ text: "Stop", callback_data: "stop" }]] };
    expect(
      await description("editMessageText", { chat_id: PRIVATE, message_id: id, text: "one", reply_markup: keyboard }),
    ).toBe(
      "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
    );
    // The same text without the keyboard is a change (the keyboard goes).
    expect((await call("editMessageText", { chat_id: PRIVATE, message_id: id, text: "one" })).ok).toBe(true);
    expect((await call("editMessageReplyMarkup", { chat_id: PRIVATE, message_id: id })).description).toContain(
      "message is not modified",
    );
    expect((await call("deleteMessage", { chat_id: PRIVATE, message_id: id })).ok).toBe(true);
    expect(await description("deleteMessage", { chat_id: PRIVATE, message_id: id })).toBe(
      "Bad Request: message to delete not found",
    );
    const photo = await call("sendPhoto", { chat_id: PRIVATE, photo: "https://example.com/a.png" });
    expect(
      await description("editMessageText", { chat_id: PRIVATE, message_id: photo.result!.message_id, text: "x" }),
    ).toBe("Bad Request: there is no text in the message to edit");
  });

  it("keeps a message a scripted answer says was sent, so that it can be edited", async () => {
    await script({
      method: "sendMessage",
      body: { ok: true, result: { message_id: 77, date: 1, chat: { id: PRIVATE, type: "private" } } },
    });
    expect((await call("sendMessage", { chat_id: PRIVATE, text: "scripted" })).result?.message_id).toBe(77);
    expect((await call("editMessageText", { chat_id: PRIVATE, message_id: 77, text: "edited" })).ok).toBe(true);
  });

  it("refuses callback data over 64 bytes and buttons without an action", async () => {
    const send = (button: Record<string, unknown>) =>
      description("sendMessage", { chat_id: PRIVATE, text: "k", reply_markup: { inline_keyboard: [[button]] } });
    expect(await send({ text: "ok", callback_data: "x".repeat(64) })).toBeUndefined();
    expect(await send({ text: "long", callback_data: "x".repeat(65) })).toBe("Bad Request: BUTTON_DATA_INVALID");
    // 33 Cyrillic letters are 66 bytes.
    expect(await send({ text: "bytes", callback_data: "я".repeat(33) })).toBe("Bad Request: BUTTON_DATA_INVALID");
    expect(await send({ text: "nothing" })).toBe(
      "Bad Request: can't parse inline keyboard button: Text buttons are unallowed in the inline keyboard",
    );
    expect(
      await description("sendMessage", { chat_id: PRIVATE, text: "k", reply_markup: { inline_keyboard: [{}] } }),
    ).toBe('Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays');
  });
});

describe("drafts", () => {
  it("go to private chats only, with a non-zero id, and end when the message is sent", async () => {
    expect(await description("sendMessageDraft", { chat_id: GROUP, draft_id: 1, text: "x" })).toBe(
      "Bad Request: TEXTDRAFT_PEER_INVALID",
    );
    expect(await description("sendMessageDraft", { chat_id: PRIVATE, draft_id: 0, text: "x" })).toBe(
      "Bad Request: DRAFT_ID_INVALID",
    );
    // An empty draft shows "Thinking…".
    expect((await call("sendMessageDraft", { chat_id: PRIVATE, draft_id: 5 })).ok).toBe(true);
    expect((await call("sendMessageDraft", { chat_id: PRIVATE, draft_id: 5, text: "Hel" })).ok).toBe(true);
    expect((await chat(PRIVATE)).draft).toMatchObject({ kind: "text", draftId: 5, text: "Hel" });
    await sent("Hello");
    expect((await chat(PRIVATE)).draft).toBeNull();
  });
});

describe("rich messages", () => {
  const rich = (rich_message: unknown, extra: Record<string, unknown> = {}) =>
    call("sendRichMessage", { chat_id: PRIVATE, rich_message, ...extra });

  it("are kept like any message: edits, not modified", async () => {
    const markdown =
      "# Plan\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n\n- [x] done\n- [ ] to do\n\n$x^2$ and a note[^1]\n\n[^1]: Note.";
    const answer = await rich({ markdown });
    expect(answer.ok, answer.description).toBe(true);
    const id = answer.result!.message_id;
    expect(
      await description("editMessageText", { chat_id: PRIVATE, message_id: id, rich_message: { markdown } }),
    ).toContain("message is not modified");
    expect(
      (await call("editMessageText", { chat_id: PRIVATE, message_id: id, rich_message: { html: "<p>Done</p>" } })).ok,
    ).toBe(true);
    expect((await chat(PRIVATE)).messages[0]).toMatchObject({
      content: { kind: "rich", rich: { form: "html", text: "Done" } },
    });
  });

  it("take exactly one of html, markdown and blocks, and refuse a thinking block outside a draft", async () => {
    expect((await rich({ markdown: "a", html: "<b>a</b>" })).description).toBe("Bad Request: RICH_MESSAGE_INVALID");
    expect((await rich({})).description).toBe("Bad Request: RICH_MESSAGE_INVALID");
    expect((await rich({ markdown: "  \n" })).description).toBe("Bad Request: RICH_MESSAGE_EMPTY");
    expect((await rich({ html: "<div>x</div>" })).description).toBe("Bad Request: RICH_MESSAGE_INVALID");
    expect((await rich({ html: "<b>x" })).description).toBe("Bad Request: RICH_MESSAGE_INVALID");
    expect((await rich({ markdown: "<tg-thinking>…</tg-thinking>\n\nAnswer" })).description).toBe(
      "Bad Request: RICH_MESSAGE_INVALID",
    );
    expect(
      (
        await call("sendRichMessageDraft", {
          chat_id: PRIVATE,
          draft_id: 2,
          rich_message: { markdown: "<tg-thinking>…</tg-thinking>" },
        })
      ).ok,
    ).toBe(true);
    expect(
      (await call("sendRichMessageDraft", { chat_id: GROUP, draft_id: 2, rich_message: { markdown: "x" } }))
        .description,
    ).toBe("Bad Request: TEXTDRAFT_PEER_INVALID");
    expect(
      (
        await rich({
          blocks: [
            { type: "paragraph", text: "Hi" },
            { type: "thinking", text: "…" },
          ],
        })
      ).description,
    ).toBe("Bad Request: RICH_MESSAGE_INVALID");
    expect((await rich({ blocks: [{ type: "paragraph", text: ["Hi ", { type: "bold", text: "there" }] }] })).ok).toBe(
      true,
    );
  });

  it("are held to the documented limits: 32,768 characters, 500 blocks, 16 levels, 20 columns", async () => {
    expect((await rich({ markdown: "x".repeat(32_768) })).ok).toBe(true);
    expect((await rich({ markdown: "x".repeat(32_769) })).description).toBe("Bad Request: RICH_MESSAGE_TOO_LONG");
    // Markup is not text: a long link still counts only its label.
    expect((await rich({ markdown: `[${"x".repeat(32_000)}](https://example.com/${"y".repeat(2000)})` })).ok).toBe(
      true,
    );
    // A list is a block, and so is each of its items.
    expect((await rich({ markdown: Array.from({ length: 499 }, (_, i) => `- ${i}`).join("\n") })).ok).toBe(true);
    expect((await rich({ markdown: Array.from({ length: 500 }, (_, i) => `- ${i}`).join("\n") })).description).toBe(
      "Bad Request: RICH_MESSAGE_TOO_MANY_BLOCKS",
    );
    // A table's rows count too.
    const table = (rows: number, columns: number) =>
      [
        `|${" h |".repeat(columns)}`,
        `|${"---|".repeat(columns)}`,
        ...Array.from({ length: rows }, () => `|${" c |".repeat(columns)}`),
      ].join("\n");
    expect((await rich({ markdown: table(498, 2) })).ok).toBe(true);
    expect((await rich({ markdown: table(499, 2) })).description).toBe("Bad Request: RICH_MESSAGE_TOO_MANY_BLOCKS");
    expect((await rich({ markdown: table(2, 20) })).ok).toBe(true);
    expect((await rich({ markdown: table(2, 21) })).description).toBe("Bad Request: RICH_MESSAGE_TOO_MANY_COLUMNS");
    expect((await rich({ markdown: `${"> ".repeat(15)}deep` })).ok).toBe(true);
    expect((await rich({ markdown: `${"> ".repeat(16)}too deep` })).description).toBe(
      "Bad Request: RICH_MESSAGE_TOO_DEEP",
    );
    expect((await rich({ html: `${"<blockquote>".repeat(17)}x${"</blockquote>".repeat(17)}` })).description).toBe(
      "Bad Request: RICH_MESSAGE_TOO_DEEP",
    );
    const [refused] = fakes.requests.filter((request) => request.refusal?.includes("TOO_DEEP"));
    expect(refused!.detail).toBe("17 levels");
  });
});

describe("switches", () => {
  it("plays a Bot API server without rich messages", async () => {
    await control({ richMessages: false });
    expect(await call("sendRichMessage", { chat_id: PRIVATE, rich_message: { markdown: "x" } })).toMatchObject({
      status: 404,
      description: "Not Found",
    });
    expect(
      await description("sendRichMessageDraft", { chat_id: PRIVATE, draft_id: 1, rich_message: { markdown: "x" } }),
    ).toBe("Not Found");
    // An older server ignores the edit's rich_message, and then has no text.
    const id = await sent("text");
    expect(
      await description("editMessageText", { chat_id: PRIVATE, message_id: id, rich_message: { markdown: "x" } }),
    ).toBe("Bad Request: message text is empty");
    expect((await control()).violations).toEqual([]);
  });

  it("has an outage until a time, or until switched off, and can drop connections", async () => {
    await control({ outage: { status: 502, until: Date.now() + 300 } });
    expect(await call("getMe")).toEqual({ status: 502, ok: false, error_code: 502, description: "Bad Gateway" });
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await call("getMe")).ok).toBe(true);
    await control({ outage: { drop: true } });
    await expect(call("getMe")).rejects.toThrow();
    await control({ outage: null });
    expect((await call("getMe")).ok).toBe(true);
  });

  it("answers a method's next calls with 429 and retry_after, then as usual", async () => {
    await control({ rateLimit: { method: "sendMessage", retryAfter: 7, times: 2 } });
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(await call("sendMessage", { chat_id: PRIVATE, text: "x" })).toEqual({
        status: 429,
        ok: false,
        error_code: 429,
        description: "Too Many Requests: retry after 7",
        parameters: { retry_after: 7 },
      });
    }
    expect((await call("sendMessage", { chat_id: PRIVATE, text: "x" })).ok).toBe(true);
    expect((await call("getMe")).ok).toBe(true);
  });
});

describe("TDLib's sidecar", () => {
  it.skipIf(!tdlib())(
    "leaves cleanly when its parent lets go (libtdjson crashes a process that exits by itself)",
    async () => {
      const child = fork(fileURLToPath(new URL("../../scripts/bot-api/tdlib-sidecar.ts", import.meta.url)), [], {
        execArgv: [],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      await new Promise((resolve) => child.once("message", resolve));
      const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        child.once("exit", (code, signal) => resolve([code, signal])),
      );
      child.disconnect();
      expect(await exited).toEqual([0, null]);
    },
  );
});

async function script(...responses: ScriptedResponse[]): Promise<void> {
  await fetch(`${fakes.url}/__control/script`, {
    method: "POST",
    body: JSON.stringify({ service: "telegram", responses }),
  });
}

async function chat(chatId: number): Promise<{ messages: Record<string, unknown>[]; draft: unknown }> {
  return (await fetch(`${fakes.url}/__control/telegram/messages?chatId=${chatId}`)).json() as Promise<{
    messages: Record<string, unknown>[];
    draft: unknown;
  }>;
}
