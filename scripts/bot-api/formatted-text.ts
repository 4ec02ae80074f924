import { badRequest, fromTdlib, type Refusal } from "./refusal.ts";
import type { ParsedEntity, TdlibParser, TdParseMode } from "./tdlib.ts";

/**
 * A message text, caption or draft text as Telegram reads it: `parse_mode` applied by TDLib's own parser, control
 * characters cleaned and the ends trimmed as TDLib does (`clean_input_string`, `fix_formatted_text`), then the
 * limits checked.
 *
 * Where each refusal comes from:
 * - "message text is empty" (no text at all) and "text is too long" (over 32,768 bytes before parsing) are the Bot API
 *   server's own checks (telegram-bot-api, Client.cpp: get_input_message_text, get_formatted_text);
 * - "can't parse entities: …" is TDLib's parser's error, first letter lowered as the server does; "text (or
 *   strings) must be encoded in UTF-8" TDLib's words for half a surrogate pair;
 * - "text must be non-empty": a text that is empty or only spaces and line breaks after parsing (TDLib,
 *   fix_formatted_text: "Text must be non-empty"; reported from the real server for `<b></b>`);
 * - "message is too long" / "message caption is too long": TDLib's check of a sent text (4,096) or caption (1,024).
 *   TDLib counts code points; Telegram documents "characters"; this counts UTF-16 units, which is never more
 *   lenient than either;
 * - edits are not checked by TDLib: the server's own error names come through unchanged ("MESSAGE_TOO_LONG",
 *   "MEDIA_CAPTION_TOO_LONG"). For an over-long draft the server's error is not documented; "MESSAGE_TOO_LONG" is
 *   chosen by analogy.
 */
export type TextUse = "send" | "edit" | "draft" | "caption" | "edit-caption";

export type CheckedText =
  | { ok: true; text: string; entities: ParsedEntity[]; checked: boolean }
  | { ok: false; refusal: Refusal };

const MESSAGE_LIMIT = 4096;
const CAPTION_LIMIT = 1024;
const RAW_LIMIT_BYTES = 1 << 15;

export async function checkFormattedText(
  parser: TdlibParser,
  input: { text: unknown; parseMode: unknown; entities?: unknown; use: TextUse },
): Promise<CheckedText> {
  const raw = input.text === undefined || input.text === null ? "" : String(input.text);
  if (raw === "" && (input.use === "send" || input.use === "edit")) {
    return { ok: false, refusal: badRequest("message text is empty") };
  }
  if (Buffer.byteLength(raw, "utf8") > RAW_LIMIT_BYTES) return { ok: false, refusal: badRequest("text is too long") };
  const mode = parseModeOf(input.parseMode);
  if (mode === "unsupported") return { ok: false, refusal: badRequest("unsupported parse_mode") };
  // Half of a surrogate pair (JSON can carry one, UTF-8 cannot): TDLib's parser says "Text must be encoded in
  // UTF-8"; a text without parse_mode meets TDLib's fix_formatted_text, "Strings must be encoded in UTF-8".
  if ((mode === undefined || !parser.status.available) && hasLoneSurrogate(raw)) {
    return { ok: false, refusal: badRequest(`${mode === undefined ? "strings" : "text"} must be encoded in UTF-8`) };
  }
  let text = raw;
  let entities: ParsedEntity[] = mode === undefined ? explicitEntities(input.entities) : [];
  let checked = true;
  if (mode !== undefined && raw !== "") {
    if (!parser.status.available) {
      // No parser here: nothing can be said about the markup (tests that need it are skipped, see startFakes).
      checked = false;
    } else {
      const [parsed] = await parser.parse([{ text: raw, mode }]);
      if (!parsed!.ok) return { ok: false, refusal: fromTdlib(parsed!.message) };
      text = parsed!.text;
      entities = parsed!.entities;
    }
  }

  const clean = cleanInput(text);
  const cleaned = trimmed(clean);
  entities = shifted(entities, clean.length - clean.replace(/^[ \n]+/, "").length, cleaned.length);
  const limit = input.use === "caption" || input.use === "edit-caption" ? CAPTION_LIMIT : MESSAGE_LIMIT;
  if (cleaned === "" && (input.use === "send" || input.use === "edit")) {
    return { ok: false, refusal: badRequest("text must be non-empty") };
  }
  if (cleaned.length > limit) return { ok: false, refusal: tooLong(input.use) };
  return { ok: true, text: cleaned, entities, checked };
}

function tooLong(use: TextUse): Refusal {
  switch (use) {
    case "send":
      return badRequest("message is too long");
    case "caption":
      return badRequest("message caption is too long");
    case "edit":
    case "draft":
      return badRequest("MESSAGE_TOO_LONG");
    case "edit-caption":
      return badRequest("MEDIA_CAPTION_TOO_LONG");
  }
}

/** `parse_mode` as the Bot API server reads it: case-insensitive, "" and "none" for none. */
function parseModeOf(value: unknown): TdParseMode | undefined | "unsupported" {
  const mode = value === undefined || value === null ? "" : String(value).toLowerCase();
  if (mode === "" || mode === "none") return undefined;
  if (mode === "html") return "HTML";
  if (mode === "markdownv2") return "MarkdownV2";
  if (mode === "markdown") return "Markdown";
  return "unsupported";
}

function explicitEntities(value: unknown): ParsedEntity[] {
  return Array.isArray(value) ? (value as ParsedEntity[]) : [];
}

function hasLoneSurrogate(text: string): boolean {
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

/**
 * TDLib's clean_input_string: control characters become spaces, carriage returns go, and so do the invisible
 * direction marks U+2028-U+202E and the combining marks U+030A, U+0333 and U+033F.
 */
function cleanInput(text: string): string {
  let cleaned = "";
  for (const character of text) {
    const code = character.codePointAt(0)!;
    if (code === 0x0d || (code >= 0x2028 && code <= 0x202e) || code === 0x030a || code === 0x0333 || code === 0x033f) {
      continue;
    }
    cleaned += code < 0x20 && code !== 0x0a ? " " : character;
  }
  return cleaned;
}

/** Entities moved with the text when its start was trimmed, cut to its end, empty ones dropped. */
function shifted(entities: ParsedEntity[], by: number, length: number): ParsedEntity[] {
  return entities.flatMap((entity) => {
    const start = Math.max(0, entity.offset - by);
    const end = Math.min(length, entity.offset - by + entity.length);
    return end > start ? [{ ...entity, offset: start, length: end - start }] : [];
  });
}

/** TDLib trims only spaces and line breaks from both ends. */
function trimmed(text: string): string {
  return text.replace(/^[ \n]+|[ \n]+$/g, "");
}
