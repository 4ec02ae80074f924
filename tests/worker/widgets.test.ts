import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ChatSession } from "../../src/durable/chat-session.ts";
import { widgetsRefusedSlot } from "../../src/widgets/widget-slots.ts";
import {
  fakes,
  GROUP_CHAT,
  openaiText,
  openaiToolCalls,
  PRIVATE_CHAT,
  postUpdate,
  say,
  sentText,
  session,
  settled,
} from "./helpers.ts";

const PACKING = {
  kind: "checklist",
  title: "Weekend trip packing",
  items: ["Tent", "Sleeping bag", "Headlamp", "Rain jacket", "Snacks"],
};

type Body = Record<string, unknown>;
const bodyOf = (request: { body: unknown }) => request.body as Body;

let nextTap = 1;

/** A tap in a widget, as Telegram would POST it (and as the fake is told, so the bot may answer it). */
async function tap(messageId: number, data: string, chatId = PRIVATE_CHAT): Promise<string> {
  const id = `wq${nextTap++}`;
  await fakes.telegram({ openQuery: { kind: "widget", id, chatId, fromId: chatId } });
  const response = await postUpdate({
    update_id: 900_000 + nextTap,
    widget_query: {
      id,
      from: { id: chatId, is_bot: false, first_name: "Ada" },
      chat_instance: "w1",
      type: { type: "data" },
      data,
      chat: { id: chatId, type: "private", first_name: "Ada" },
      message_id: messageId,
    },
  });
  expect(response.status).toBe(200);
  return id;
}

/** The answers to widget queries so far, by query id. */
async function widgetAnswers(count: number): Promise<Map<string, string | undefined>> {
  const answers = await fakes.wait("telegram", { method: "answerWidgetQuery", count });
  return new Map(answers.map((request) => [String(bodyOf(request).widget_query_id), bodyOf(request).data as string]));
}

async function widgetMessage(chatId: number) {
  const { messages } = await fakes.chatMessages(chatId);
  return messages.find((message) => (message as unknown as Body).widget !== undefined) as unknown as
    | { message_id: number; widget: { html: string; chat_data?: string } }
    | undefined;
}

describe("answers that are widgets (show_widget)", () => {
  it("a packing checklist is a widget in a private chat, whose ticks the bot keeps and a reload shows", async () => {
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "show_widget", arguments: PACKING }]),
      openaiText("Here is your list."),
    );
    await say("make me a packing checklist for a weekend trip", { count: 1 });
    const [sent] = await fakes.wait("telegram", { method: "sendWidget", chatId: PRIVATE_CHAT });
    const html = String(bodyOf(sent!).html);
    for (const item of PACKING.items) expect(html).toContain(JSON.stringify(item).slice(1, -1));
    expect(bodyOf(sent!)).toMatchObject({ chat_data: "{}", allow_queries: true });
    await settled(PRIVATE_CHAT);
    const messageId = (sent!.result as { message_id: number }).message_id;
    const before = (await fakes.requests("openai")).length;

    const first = await tap(messageId, "t:1");
    const second = await tap(messageId, "t:3");
    let answers = await widgetAnswers(2);
    expect(answers.get(first)).toBe('{"t":[1]}');
    expect(answers.get(second)).toBe('{"t":[1,3]}');
    const third = await tap(messageId, "t:1");
    answers = await widgetAnswers(3);
    expect(answers.get(third)).toBe('{"t":[3]}');

    // A reload: the message's widget carries the ticks as its chat data (kept in Telegram by editMessageWidgetData).
    await fakes.wait("telegram", { method: "editMessageWidgetData", count: 3 });
    const stored = await widgetMessage(PRIVATE_CHAT);
    expect(stored?.widget.chat_data).toBe('{"t":[3]}');
    // Ticks are answered from stored state: no model call.
    expect((await fakes.requests("openai")).length).toBe(before);
  });

  it("in a group the same request arrives as a message, once", async () => {
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "show_widget", arguments: PACKING }]),
      openaiText("There you go."),
    );
    await say("@testbot make me a packing checklist for a weekend trip", { chatId: GROUP_CHAT });
    await settled(GROUP_CHAT);
    expect(await fakes.requests("telegram", { method: "sendWidget" })).toHaveLength(0);
    const sent = await fakes.requests("telegram", { method: "sendMessage", chatId: GROUP_CHAT });
    const lists = sent.filter((request) => sentText(request).includes("☐ Sleeping bag"));
    expect(lists).toHaveLength(1);
    expect(sentText(lists[0])).toContain("Weekend trip packing");
    const toolResult = (await fakes.requests("openai")).at(-1)!.body as {
      messages: { role: string; content: string }[];
    };
    expect(toolResult.messages.find((message) => message.role === "tool")!.content).toContain("private chats only");
  });

  it("in a group a choice arrives as a question with buttons, once", async () => {
    await fakes.script(
      "openai",
      openaiToolCalls([
        { name: "show_widget", arguments: { kind: "choice", title: "Which laptop?", items: ["Air", "X1", "XPS"] } },
      ]),
      openaiText("Tap one."),
    );
    await say("@testbot help me choose between these three laptops", { chatId: GROUP_CHAT });
    await settled(GROUP_CHAT);
    expect(await fakes.requests("telegram", { method: "sendWidget" })).toHaveLength(0);
    const questions = (await fakes.requests("telegram", { method: "sendMessage", chatId: GROUP_CHAT })).filter(
      (request) =>
        (
          bodyOf(request).reply_markup as { inline_keyboard?: { callback_data: string }[][] } | undefined
        )?.inline_keyboard
          ?.flat()
          .some((button) => button.callback_data.startsWith("ask:")) === true,
    );
    expect(questions).toHaveLength(1);
    const keyboard = (bodyOf(questions[0]!).reply_markup as { inline_keyboard: { text: string }[][] }).inline_keyboard;
    expect(keyboard.flat().map((button) => button.text)).toEqual(["Air", "X1", "XPS"]);
  });

  it("a choice's tap continues the conversation with what was chosen", async () => {
    await fakes.script(
      "openai",
      openaiToolCalls([
        { name: "show_widget", arguments: { kind: "choice", title: "Which laptop?", items: ["Air", "X1", "XPS"] } },
      ]),
      openaiText("Tap one."),
      openaiText("Good pick: the XPS."),
    );
    await say("help me choose between these three laptops");
    const [sent] = await fakes.wait("telegram", { method: "sendWidget", chatId: PRIVATE_CHAT });
    await settled(PRIVATE_CHAT);
    const id = await tap((sent!.result as { message_id: number }).message_id, "c:2");
    expect((await widgetAnswers(1)).get(id)).toBe('{"c":2}');
    await eventuallySent(PRIVATE_CHAT, "Good pick");
    const last = (await fakes.requests("openai")).at(-1)!.body as { messages: { role: string; content: string }[] };
    expect(last.messages.at(-1)!.content).toBe('[Chose "XPS" in your widget "Which laptop?"]');
  });

  it("a server without widgets gets the same answer as a message, once, and no widget is tried again for a while", async () => {
    await fakes.telegram({ widgets: false });
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "show_widget", arguments: PACKING }]),
      openaiText("Done."),
      openaiToolCalls([{ name: "show_widget", arguments: { ...PACKING, title: "Second list" } }]),
      openaiText("Done again."),
    );
    await say("make me a packing checklist for a weekend trip");
    await settled(PRIVATE_CHAT);
    expect(await fakes.requests("telegram", { method: "sendWidget" })).toHaveLength(1);
    const lists = (await fakes.requests("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT })).filter(
      (request) => sentText(request).includes("☐ Sleeping bag"),
    );
    expect(lists).toHaveLength(1);
    const refused = await runInDurableObject(session(PRIVATE_CHAT), (instance: ChatSession) =>
      instance.stores.meta.get(widgetsRefusedSlot),
    );
    expect(refused?.reason).toContain("404");

    await say("another one", { count: 4 });
    await settled(PRIVATE_CHAT);
    expect(await fakes.requests("telegram", { method: "sendWidget" })).toHaveLength(1);
  });

  it("the model's own HTML that reaches for the network is refused before sending, with the reason", async () => {
    const html = "<!doctype html><p id=x></p><script>fetch('https://example.com/x').then(r=>r.text())</script>";
    await fakes.script(
      "openai",
      openaiToolCalls([
        { name: "show_widget", arguments: { kind: "html", title: "Prices", html, fallback: "Prices: none." } },
      ]),
      openaiText("Sorry."),
    );
    await say("show me live prices");
    await settled(PRIVATE_CHAT);
    expect(await fakes.requests("telegram", { method: "sendWidget" })).toHaveLength(0);
    const second = (await fakes.requests("openai")).at(-1)!.body as { messages: { role: string; content: string }[] };
    expect(second.messages.find((message) => message.role === "tool")!.content).toContain("no network: remove fetch");
  });
});

async function eventuallySent(chatId: number, text: string): Promise<void> {
  for (let count = 1; count < 10; count++) {
    const sent = await fakes.wait("telegram", { method: "sendMessage", chatId, count });
    if (sent.some((request) => sentText(request).includes(text))) return;
  }
  throw new Error(`"${text}" was not sent to ${chatId}`);
}
