import { badRequest, type Refusal } from "./refusal.ts";
import { isRecord } from "./shape-check.ts";

/**
 * `reply_markup` as the Bot API server reads it (telegram-bot-api, Client.cpp: get_reply_markup and
 * get_inline_keyboard_button, whose error texts these are), and the value rules Telegram's servers add to it:
 * callback data of 1-64 bytes ("BUTTON_DATA_INVALID"), button URLs it can open ("BUTTON_URL_INVALID").
 * Returns the inline keyboard (empty for none) or a refusal.
 */
interface InlineButton {
  text: string;
  callback_data?: string;
  url?: string;
  [other: string]: unknown;
}
export type InlineKeyboard = InlineButton[][];

const BUTTON_TYPES = [
  "url",
  "callback_data",
  "callback_game",
  "pay",
  "switch_inline_query",
  "switch_inline_query_chosen_chat",
  "switch_inline_query_current_chat",
  "login_url",
  "web_app",
  "copy_text",
  "disabled",
];
const CALLBACK_DATA_MAX_BYTES = 64;

export function checkReplyMarkup(
  value: unknown,
): { ok: true; keyboard: InlineKeyboard } | { ok: false; refusal: Refusal } {
  if (value === undefined || value === null) return { ok: true, keyboard: [] };
  let markup = value;
  if (typeof markup === "string") {
    try {
      markup = JSON.parse(markup);
    } catch {
      return refused("can't parse reply keyboard markup JSON object");
    }
  }
  if (!isRecord(markup)) return refused("object expected as reply markup");
  const rows = markup.inline_keyboard;
  if (rows === undefined) return { ok: true, keyboard: [] };
  if (!Array.isArray(rows)) return refused('field "inline_keyboard" must be of type Array');
  const keyboard: InlineKeyboard = [];
  for (const row of rows) {
    if (!Array.isArray(row)) {
      return refused('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays');
    }
    const buttons: InlineButton[] = [];
    for (const button of row) {
      const problem = buttonProblem(button);
      if (problem) return { ok: false, refusal: problem };
      buttons.push(button as InlineButton);
    }
    keyboard.push(buttons);
  }
  return { ok: true, keyboard: keyboard.filter((row) => row.length > 0) };
}

function buttonProblem(button: unknown): Refusal | undefined {
  const cannot = (why: string) => badRequest(`can't parse inline keyboard button: ${why}`);
  if (!isRecord(button)) return cannot("InlineKeyboardButton must be an Object");
  if (!("text" in button)) return cannot('Can\'t find field "text"');
  if (typeof button.text !== "string") return cannot('Field "text" must be of type String');
  // An empty url or callback_data counts as absent (the server tests them with `empty()`).
  const type = BUTTON_TYPES.find(
    (name) => name in button && !((name === "url" || name === "callback_data") && button[name] === ""),
  );
  if (!type) return cannot("Text buttons are unallowed in the inline keyboard");
  if (type === "callback_data") {
    if (typeof button.callback_data !== "string") return cannot('Field "callback_data" must be of type String');
    if (Buffer.byteLength(button.callback_data, "utf8") > CALLBACK_DATA_MAX_BYTES) {
      return badRequest("BUTTON_DATA_INVALID");
    }
  }
  if (type === "url") {
    if (typeof button.url !== "string") return cannot('Field "url" must be of type String');
    // Telegram opens http(s), tg and ton links, and bare domains; what it refuses beyond that is not documented.
    if (!/^((https?|tg|ton):\/\/\S+|[\w-]+(\.[\w-]+)+(\/\S*)?)$/i.test(button.url)) {
      return badRequest("BUTTON_URL_INVALID");
    }
  }
  return undefined;
}

function refused(description: string): { ok: false; refusal: Refusal } {
  return { ok: false, refusal: badRequest(description) };
}
