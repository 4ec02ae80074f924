import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { DEFAULT_MODELS } from "../../src/config/providers.ts";
import { readSettings } from "../../src/config/settings.ts";
import {
  admin,
  buttonPress,
  fakes,
  GROUP_CHAT,
  OTHER_PRIVATE_CHAT,
  openaiText,
  PRIVATE_CHAT,
  postUpdate,
  say,
  sentText,
} from "./helpers.ts";

type Keyboard = { text: string; callback_data: string }[][];

/** The id the fake Telegram gave a sent message (a press must be on a message that exists). */
function messageIdOf(request: { result?: unknown }): number {
  return (request.result as { message_id: number }).message_id;
}

function keyboardOf(request: { body: unknown }): Keyboard | undefined {
  return (request.body as { reply_markup?: { inline_keyboard: Keyboard } }).reply_markup?.inline_keyboard;
}

describe("/model as buttons", () => {
  it("shows an admin the configured choices; a press answers the callback and updates the chat's config", async () => {
    const menu = await say("/model");
    expect(sentText(menu)).toContain("openai");
    const keyboard = keyboardOf(menu)!;
    expect(keyboard.flat().map((button) => button.text)).toEqual(["✓ gpt-test", "claude-sonnet-4-5"]);
    const anthropic = keyboard.flat()[1]!.callback_data;
    expect(anthropic).toBe("model:anthropic:claude-sonnet-4-5");

    await postUpdate(buttonPress(anthropic, { messageId: messageIdOf(menu) }));
    const [answer] = await fakes.wait("telegram", { method: "answerCallbackQuery" });
    expect((answer!.body as { text: string }).text).toBe("Now anthropic · claude-sonnet-4-5, from the next message.");
    const config = (await (await admin(`/chats/${PRIVATE_CHAT}/config`)).json()) as { config: unknown };
    expect(config.config).toEqual({ provider: "anthropic", model: "claude-sonnet-4-5" });

    // The menu now ticks the new choice.
    const [edit] = await fakes.wait("telegram", { method: "editMessageText", chatId: PRIVATE_CHAT });
    expect(
      keyboardOf(edit!)!
        .flat()
        .map((button) => button.text),
    ).toEqual(["gpt-test", "✓ claude-sonnet-4-5"]);
  });

  it("keeps the rest of the config, refuses non-admins, and ignores buttons for models no longer offered", async () => {
    await admin(`/chats/${GROUP_CHAT}/config`, {
      method: "PUT",
      body: JSON.stringify({ systemPrompt: "Be brief.", provider: "anthropic" }),
    });
    // Someone who is not an admin sees the model, without buttons.
    const plain = await say("/model", { chatId: GROUP_CHAT, fromId: OTHER_PRIVATE_CHAT });
    expect(sentText(plain)).toContain(DEFAULT_MODELS.anthropic);
    expect(keyboardOf(plain)).toBeUndefined();

    // Presses on that message (as if its buttons had been there, from an older menu).
    const messageId = messageIdOf(plain);
    await postUpdate(
      buttonPress("model:openai:gpt-test", { chatId: GROUP_CHAT, fromId: OTHER_PRIVATE_CHAT, messageId }),
    );
    await postUpdate(buttonPress("model:openai:gpt-5-secret", { chatId: GROUP_CHAT, fromId: PRIVATE_CHAT, messageId }));
    const answers = await fakes.wait("telegram", { method: "answerCallbackQuery", count: 2 });
    const texts = answers.map((request) => (request.body as { text: string }).text);
    expect(texts).toContain("Only the bot's admins can change the model.");
    expect(texts).toContain("That model is not offered any more. Send /model again.");

    await postUpdate(buttonPress("model:openai:gpt-test", { chatId: GROUP_CHAT, fromId: PRIVATE_CHAT, messageId }));
    await fakes.wait("telegram", { method: "answerCallbackQuery", count: 3 });
    const stored = (await (await admin(`/chats/${GROUP_CHAT}/config`)).json()) as { config: unknown };
    expect(stored.config).toEqual({ systemPrompt: "Be brief.", provider: "openai", model: "gpt-test" });

    // The next message uses the chosen model.
    await fakes.script("openai", openaiText("Brief."));
    await say("@testbot hi", { chatId: GROUP_CHAT, fromId: PRIVATE_CHAT, count: 2 });
    const [call] = await fakes.requests("openai");
    expect((call!.body as { model: string }).model).toBe("gpt-test");
  });

  it("reads MODEL_CHOICES as provider:model entries and reports a bad one by name", () => {
    const settings = readSettings({
      ...env,
      MODEL_CHOICES: "openai:gpt-4.1, anthropic:claude-opus-4-1, openai:gpt-4.1, nobody:x",
    });
    expect(settings.modelChoices).toEqual([
      { provider: "openai", model: "gpt-4.1" },
      { provider: "anthropic", model: "claude-opus-4-1" },
    ]);
    expect(settings.problems.join("\n")).toContain("MODEL_CHOICES has an entry (nobody:x)");
    // Unset: no list of the owner's, so /model offers what the providers serve (served-models.test.ts).
    expect(readSettings({ ...env, MODEL_CHOICES: "" }).modelChoices).toEqual([]);
  });
});
