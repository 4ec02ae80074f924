import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ChatSession } from "../../src/durable/chat-session.ts";
import { questionsSlot } from "../../src/turn/question-slot.ts";
import {
  buttonPress,
  fakes,
  GROUP_CHAT,
  OTHER_PRIVATE_CHAT,
  openaiText,
  openaiToolCalls,
  PRIVATE_CHAT,
  postUpdate,
  say,
  sentText,
  session,
  settled,
  storedHistory,
} from "./helpers.ts";

type Keyboard = { text: string; callback_data: string }[][];

const LAPTOPS = { question: "Which laptop fits you best?", choices: ["Air 13", "ThinkPad X1", "XPS 14"] };

/** The model asks with buttons, then ends its turn in a line. */
async function scriptQuestion(): Promise<void> {
  await fakes.script("openai", openaiToolCalls([{ name: "ask_user", arguments: LAPTOPS }]), openaiText("Tap one."));
}

/**
 * The bot's message with the question's buttons, among what it sent to a chat (the status line that names the tool
 * call carries the question's words too, without its buttons).
 */
async function questionMessage(chatId: number) {
  for (let count = 1; count < 10; count++) {
    const sent = await fakes.wait("telegram", { method: "sendMessage", chatId, count });
    const question = sent.find((request) =>
      keyboardOf(request)
        ?.flat()
        .some((button) => button.callback_data.startsWith("ask:")),
    );
    if (question) {
      return {
        messageId: (question.result as { message_id: number }).message_id,
        buttons: keyboardOf(question)!.flat(),
      };
    }
  }
  throw new Error(`no question with buttons was sent to ${chatId}`);
}

function keyboardOf(request: { body: unknown }): Keyboard | undefined {
  return (request.body as { reply_markup?: { inline_keyboard?: Keyboard } }).reply_markup?.inline_keyboard;
}

function openaiUserTexts(body: unknown): string[] {
  return ((body as { messages: { role: string; content: unknown }[] }).messages ?? [])
    .filter((message) => message.role === "user")
    .map((message) => (typeof message.content === "string" ? message.content : JSON.stringify(message.content)));
}

describe("questions with buttons (ask_user)", () => {
  it("shows the choices as buttons, and a tap continues the same conversation with what was chosen", async () => {
    await scriptQuestion();
    await say("help me choose between these three laptops");
    const { messageId, buttons } = await questionMessage(PRIVATE_CHAT);
    expect(buttons.map((button) => button.text)).toEqual(LAPTOPS.choices);
    expect(buttons.every((button) => /^ask:[a-z0-9]{10}:[0-7]$/.test(button.callback_data))).toBe(true);
    await settled(PRIVATE_CHAT);

    await fakes.script("openai", openaiText("The ThinkPad X1 it is: great keyboard."));
    await postUpdate(buttonPress(buttons[1]!.callback_data, { messageId }));
    const [answer] = await fakes.wait("telegram", { method: "answerCallbackQuery" });
    expect((answer!.body as { text: string }).text).toBe("You chose: ThinkPad X1");
    const [edit] = await fakes.wait("telegram", { method: "editMessageText", chatId: PRIVATE_CHAT });
    expect(sentText(edit)).toContain("✅ ThinkPad X1");
    expect((edit!.body as { reply_markup?: { inline_keyboard: Keyboard } }).reply_markup?.inline_keyboard).toEqual([]);

    await eventuallySent(PRIVATE_CHAT, "ThinkPad X1 it is");
    const calls = await fakes.requests("openai");
    const last = openaiUserTexts(calls.at(-1)!.body);
    // The same conversation: the first request is still there, and the choice is the new turn's input.
    expect(last[0]).toContain("three laptops");
    expect(last.at(-1)).toBe(`[Chose "ThinkPad X1" for your question "${LAPTOPS.question}"]`);

    // A second tap on the answered question changes nothing.
    await postUpdate(buttonPress(buttons[0]!.callback_data, { messageId }));
    const answers = await fakes.wait("telegram", { method: "answerCallbackQuery", count: 2 });
    expect((answers[1]!.body as { text: string }).text).toBe("That question has expired or was already answered.");
    await settled(PRIVATE_CHAT);
    expect((await fakes.requests("openai")).length).toBe(3);
  });

  it("in a group, only the asker (or an admin) may answer; anyone else is told privately", async () => {
    await scriptQuestion();
    await say("@testbot help me choose between these three laptops", {
      chatId: GROUP_CHAT,
      fromId: OTHER_PRIVATE_CHAT,
      firstName: "Bea",
    });
    const { messageId, buttons } = await questionMessage(GROUP_CHAT);
    await settled(GROUP_CHAT);

    // Someone else in the group (not an admin) taps.
    const stranger = buttonPress(buttons[0]!.callback_data, { chatId: GROUP_CHAT, fromId: 4242, messageId });
    const strangerQuery = (stranger.callback_query as { id: string }).id;
    await fakes.telegram({ openQuery: { kind: "callback", id: strangerQuery, chatId: GROUP_CHAT, fromId: 4242 } });
    await postUpdate(stranger);
    await fakes.wait("telegram", { method: "answerCallbackQuery" });
    const ephemeral = (await fakes.requests("telegram", { method: "sendMessage" })).find(
      (request) => (request.body as { ephemeral_message_parameters?: unknown }).ephemeral_message_parameters,
    );
    expect(sentText(ephemeral)).toBe("This question is for the person who asked, or an admin.");

    // The asker's tap is taken.
    await fakes.script("openai", openaiText("Then the XPS 14."));
    await postUpdate(
      buttonPress(buttons[2]!.callback_data, { chatId: GROUP_CHAT, fromId: OTHER_PRIVATE_CHAT, messageId }),
    );
    const [edit] = await fakes.wait("telegram", { method: "editMessageText", chatId: GROUP_CHAT });
    expect(sentText(edit)).toContain("XPS 14");
    await eventuallySent(GROUP_CHAT, "Then the XPS 14.");
    const last = openaiUserTexts((await fakes.requests("openai")).at(-1)!.body);
    expect(last.at(-1)).toContain(`[Chose "XPS 14" for your question`);
  });

  it("expires unanswered after its time: the message says so, its buttons go, the model is told", async () => {
    await scriptQuestion();
    await say("help me choose between these three laptops");
    const { messageId, buttons } = await questionMessage(PRIVATE_CHAT);
    await settled(PRIVATE_CHAT);
    // A day later (the alarm is set for it).
    const alarm = await runInDurableObject(session(PRIVATE_CHAT), async (instance: ChatSession, state) => {
      const questions = instance.stores.meta.get(questionsSlot)!;
      instance.stores.meta.set(
        questionsSlot,
        questions.map((question) => ({ ...question, expiresAt: Date.now() - 1 })),
      );
      return { alarm: await state.storage.getAlarm(), expiresAt: questions[0]!.expiresAt };
    });
    expect(alarm.alarm).not.toBeNull();
    expect(alarm.alarm).toBeLessThanOrEqual(alarm.expiresAt);
    await runDurableObjectAlarm(session(PRIVATE_CHAT));
    const [edit] = await fakes.wait("telegram", { method: "editMessageText", chatId: PRIVATE_CHAT });
    expect(sentText(edit)).toContain("No answer in time");
    expect((edit!.body as { message_id: number }).message_id).toBe(messageId);
    const history = await storedHistory(PRIVATE_CHAT);
    expect(history.at(-1)!.content).toContain("expired without an answer");

    await postUpdate(buttonPress(buttons[0]!.callback_data, { messageId }));
    const [answer] = await fakes.wait("telegram", { method: "answerCallbackQuery" });
    expect((answer!.body as { text: string }).text).toBe("That question has expired or was already answered.");
  });
});

async function eventuallySent(chatId: number, text: string): Promise<void> {
  for (let count = 1; count < 10; count++) {
    const sent = await fakes.wait("telegram", { method: "sendMessage", chatId, count });
    if (sent.some((request) => sentText(request).includes(text))) return;
  }
  throw new Error(`"${text}" was not sent to ${chatId}`);
}
