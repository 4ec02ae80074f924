import { Marked, type Token, type Tokens } from "marked";
import { badRequest, type Refusal } from "./refusal.ts";
import { isRecord } from "./shape-check.ts";

/**
 * A rich message (Bot API 10.1-10.3, `InputRichMessage`) checked against its documented limits. TDLib sends the
 * Markdown and HTML forms to Telegram's servers as they are (RichMessage.cpp), so nothing here is Telegram's own
 * parser: the Markdown form is measured with marked's lexer (GitHub-flavoured, as Telegram's rich Markdown is), the
 * HTML form with a walk over its tags, the block form (10.2) over its JSON.
 *
 * The limits are the documented ones. The refusal names are chosen: Telegram documents none, and the names seen in
 * other projects (RICH_MESSAGE_EMPTY, RICH_MESSAGE_URL_INVALID, RICH_MESSAGE_MEDIA_INVALID) are unconfirmed.
 * RICH_MESSAGE_TOO_LONG, _TOO_MANY_BLOCKS, _TOO_DEEP, _TOO_MANY_COLUMNS, _TOO_MANY_MEDIA, _EMPTY and _INVALID follow
 * their style. `detail` says what was measured; it is not part of Telegram's answer.
 */
const RICH_LIMITS = { characters: 32_768, blocks: 500, depth: 16, columns: 20, media: 50 } as const;

type RichForm = "markdown" | "html" | "blocks";

/** A rich message as the fakes keep it: its source, and what was measured. */
export interface StoredRich {
  form: RichForm;
  /** The `rich_message` object as sent. */
  input: Record<string, unknown>;
  /** Its visible text (markup removed), for tests that look for what was delivered. */
  text: string;
  blocks: number;
  depth: number;
  columns: number;
  media: number;
  thinking: boolean;
}

export type RichCheck = { ok: true; rich: StoredRich } | { ok: false; refusal: Refusal; detail: string };

interface Measure {
  text: string;
  blocks: number;
  depth: number;
  columns: number;
  media: number;
  thinking: boolean;
}

export function checkRichMessage(value: unknown, options: { draft: boolean }): RichCheck {
  let input = value;
  if (typeof input === "string") {
    try {
      input = JSON.parse(input);
    } catch {
      return invalid("rich_message is not a JSON object");
    }
  }
  if (!isRecord(input)) return invalid("rich_message is not an object");
  const forms = (["markdown", "html", "blocks"] as const).filter((form) => input[form] !== undefined);
  if (forms.length !== 1) return invalid(`exactly one of html, markdown or blocks is needed, got ${forms.length}`);
  const form = forms[0]!;
  let measured: Measure | string;
  switch (form) {
    case "markdown":
      measured = typeof input.markdown === "string" ? measureMarkdown(input.markdown) : "markdown is not a string";
      break;
    case "html":
      measured = typeof input.html === "string" ? measureHtml(input.html) : "html is not a string";
      break;
    case "blocks":
      measured = Array.isArray(input.blocks) ? measureBlocks(input.blocks) : "blocks is not an array";
      break;
  }
  if (typeof measured === "string") return invalid(measured);
  const characters = Array.from(measured.text).length;
  const refuse = (name: string, detail: string): RichCheck => ({
    ok: false,
    refusal: badRequest(`RICH_MESSAGE_${name}`),
    detail,
  });
  if (measured.text.trim() === "" && measured.blocks === 0 && measured.media === 0 && !measured.thinking) {
    return refuse("EMPTY", "nothing to show");
  }
  if (characters > RICH_LIMITS.characters) return refuse("TOO_LONG", `${characters} characters`);
  if (measured.blocks > RICH_LIMITS.blocks) return refuse("TOO_MANY_BLOCKS", `${measured.blocks} blocks`);
  if (measured.depth > RICH_LIMITS.depth) return refuse("TOO_DEEP", `${measured.depth} levels`);
  if (measured.columns > RICH_LIMITS.columns) return refuse("TOO_MANY_COLUMNS", `${measured.columns} columns`);
  if (measured.media > RICH_LIMITS.media) return refuse("TOO_MANY_MEDIA", `${measured.media} media`);
  if (measured.thinking && !options.draft) return refuse("INVALID", "a thinking block outside a draft");
  return { ok: true, rich: { form, input, ...measured } };
}

function invalid(detail: string): RichCheck {
  return { ok: false, refusal: badRequest("RICH_MESSAGE_INVALID"), detail };
}

// ---- Markdown -------------------------------------------------------------------------------------------------

const lexer = new Marked({ gfm: true });

/** HTML blocks that hold other blocks when written around Markdown (`<details>` … `</details>`). */
const CONTAINER_TAGS = ["details", "tg-collage", "tg-slideshow", "blockquote", "aside", "figure"];

function measureMarkdown(markdown: string): Measure {
  const measure: Measure = { text: "", blocks: 0, depth: 0, columns: 0, media: 0, thinking: false };
  const walkBlocks = (tokens: Token[], depth: number) => {
    // Containers opened by HTML blocks (`<details>` on its own, its Markdown body, then `</details>`).
    let open = 0;
    for (const token of tokens) {
      const level = depth + open;
      switch (token.type) {
        case "space":
          break;
        case "html": {
          const html = measureHtml(token.raw, { lenient: true });
          if (typeof html !== "string") {
            measure.thinking ||= html.thinking;
            measure.media += html.media;
            measure.text += html.text;
            measure.blocks += html.blocks;
            measure.depth = Math.max(measure.depth, level + html.depth);
          }
          open += containerBalance(token.raw);
          open = Math.max(0, open);
          if (open > 0) measure.depth = Math.max(measure.depth, depth + open);
          break;
        }
        case "blockquote":
          block(level);
          walkBlocks((token as Tokens.Blockquote).tokens, level + 1);
          break;
        case "list":
          block(level);
          for (const item of (token as Tokens.List).items) {
            block(level + 1);
            walkBlocks(item.tokens, level + 2);
          }
          break;
        case "table": {
          const table = token as Tokens.Table;
          block(level);
          measure.columns = Math.max(measure.columns, table.header.length);
          for (const row of [table.header, ...table.rows]) {
            block(level + 1);
            for (const cell of row) walkInline(cell.tokens, level + 2);
          }
          break;
        }
        case "code":
          block(level);
          measure.text += (token as Tokens.Code).text;
          break;
        case "text":
          // The text of a tight list item: part of the item, not a block of its own.
          walkInline((token as Tokens.Text).tokens ?? [], level);
          if (!(token as Tokens.Text).tokens) measure.text += (token as Tokens.Text).text;
          break;
        default: {
          block(level);
          const inline = (token as { tokens?: Token[] }).tokens;
          if (inline) walkInline(inline, level + 1);
          if (token.type === "paragraph" && isMediaParagraph(token as Tokens.Paragraph)) measure.media += 1;
        }
      }
    }
  };
  const block = (level: number) => {
    measure.blocks += 1;
    measure.depth = Math.max(measure.depth, level + 1);
  };
  const walkInline = (tokens: Token[], level: number) => {
    for (const token of tokens) {
      const inner = (token as { tokens?: Token[] }).tokens;
      if (inner && inner.length > 0) {
        measure.depth = Math.max(measure.depth, level + 1);
        walkInline(inner, level + 1);
      } else if (token.type === "html") {
        const html = measureHtml(token.raw, { lenient: true });
        if (typeof html !== "string") {
          measure.text += html.text;
          measure.thinking ||= html.thinking;
        }
      } else if (token.type === "image") {
        measure.text += (token as Tokens.Image).text;
      } else if ("text" in token && typeof token.text === "string") {
        measure.text += token.text;
      }
    }
  };
  walkBlocks(lexer.lexer(markdown), 0);
  return measure;
}

/** A paragraph that is only an image (`![](https://…)`): a media block in Telegram's rich Markdown. */
function isMediaParagraph(token: Tokens.Paragraph): boolean {
  const meaningful = token.tokens.filter((inner) => !(inner.type === "text" && inner.raw.trim() === ""));
  return meaningful.length > 0 && meaningful.every((inner) => inner.type === "image");
}

/** How many container tags an HTML block opens (positive) or closes (negative). */
function containerBalance(html: string): number {
  let balance = 0;
  for (const match of html.matchAll(/<(\/?)([a-z][\w-]*)[^>]*?(\/?)>/gi)) {
    if (!CONTAINER_TAGS.includes(match[2]!.toLowerCase()) || match[3]) continue;
    balance += match[1] ? -1 : 1;
  }
  return balance;
}

// ---- HTML -----------------------------------------------------------------------------------------------------

/** The tags of rich HTML (the Bot API's list), and which of them are blocks and which never have an end tag. */
const INLINE_TAGS = [
  "a",
  "b",
  "strong",
  "i",
  "em",
  "u",
  "ins",
  "s",
  "strike",
  "del",
  "code",
  "mark",
  "sub",
  "sup",
  "tg-spoiler",
  "span",
  "tg-reference",
  "tg-emoji",
  "tg-time",
  "tg-math",
  "br",
  "cite",
  "summary",
  "figcaption",
  "caption",
  "input",
  "tg-button",
  "th",
  "td",
];
const BLOCK_TAGS = [
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "p",
  "pre",
  "footer",
  "hr",
  "ul",
  "ol",
  "li",
  "blockquote",
  "aside",
  "img",
  "video",
  "audio",
  "tg-document",
  "figure",
  "tg-map",
  "tg-collage",
  "tg-slideshow",
  "table",
  "tr",
  "details",
  "tg-math-block",
  "tg-button-row",
  "tg-thinking",
];
const VOID_TAGS = ["br", "hr", "img", "input"];
const MEDIA_TAGS = ["img", "video", "audio", "tg-document"];
const NAMED_ENTITIES: Record<string, string> = {
  lt: "<",
  gt: ">",
  amp: "&",
  quot: '"',
  apos: "'",
  nbsp: "\u00a0",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
};

/**
 * Measures rich HTML, or says why it is malformed. `lenient` (HTML inside Markdown, which "can contain arbitrary
 * HTML") skips unknown tags and unbalanced ones instead of refusing them.
 */
function measureHtml(html: string, options: { lenient?: boolean } = {}): Measure | string {
  const measure: Measure = { text: "", blocks: 0, depth: 0, columns: 0, media: 0, thinking: false };
  const open: { tag: string; cells: number }[] = [];
  const token =
    /<(\/?)([a-zA-Z][\w-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*(\/?)>|<!--[\s\S]*?-->|&(#\d+|#x[\da-f]+|\w+);|[^<&]+|[<&]/gi;
  for (const match of html.matchAll(token)) {
    const [whole, closing, name, attributes, selfClosing, entity] = match;
    if (name === undefined) {
      if (whole.startsWith("<!--")) continue;
      if (entity !== undefined) measure.text += decodeEntity(entity) ?? whole;
      else measure.text += whole;
      continue;
    }
    const tag = name.toLowerCase();
    const known = INLINE_TAGS.includes(tag) || BLOCK_TAGS.includes(tag);
    if (!known) {
      if (options.lenient) continue;
      return `unsupported tag <${tag}>`;
    }
    if (closing) {
      const index = open.map((entry) => entry.tag).lastIndexOf(tag);
      if (index === -1) {
        if (options.lenient) continue;
        return `</${tag}> closes nothing`;
      }
      if (index !== open.length - 1 && !options.lenient) return `</${tag}> closes <${open.at(-1)!.tag}> first`;
      open.length = index;
      continue;
    }
    if (BLOCK_TAGS.includes(tag)) measure.blocks += 1;
    if (MEDIA_TAGS.includes(tag)) measure.media += 1;
    if (tag === "tg-thinking") measure.thinking = true;
    if (tag === "td" || tag === "th") {
      const row = open.findLast((entry) => entry.tag === "tr");
      if (row) {
        row.cells += Math.max(1, Number(/colspan\s*=\s*["']?(\d+)/i.exec(attributes ?? "")?.[1] ?? 1));
        measure.columns = Math.max(measure.columns, row.cells);
      }
    }
    measure.depth = Math.max(measure.depth, open.length + 1);
    if (selfClosing || VOID_TAGS.includes(tag) || tag === "tg-map") continue;
    open.push({ tag, cells: 0 });
  }
  if (open.length > 0 && !options.lenient) return `<${open.at(-1)!.tag}> is not closed`;
  return measure;
}

function decodeEntity(entity: string): string | undefined {
  if (entity.startsWith("#")) {
    const code =
      entity[1] === "x" || entity[1] === "X" ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1));
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
  }
  return NAMED_ENTITIES[entity];
}

// ---- Blocks (10.2) --------------------------------------------------------------------------------------------

const BLOCK_TYPES = [
  "buttons",
  "paragraph",
  "heading",
  "pre",
  "footer",
  "divider",
  "mathematical_expression",
  "anchor",
  "list",
  "blockquote",
  "expandable_blockquote",
  "pullquote",
  "collage",
  "slideshow",
  "table",
  "details",
  "map",
  "animation",
  "audio",
  "document",
  "photo",
  "video",
  "voice_note",
  "thinking",
];
const MEDIA_BLOCKS = ["animation", "audio", "document", "photo", "video", "voice_note"];

function measureBlocks(blocks: unknown[]): Measure | string {
  const measure: Measure = { text: "", blocks: 0, depth: 0, columns: 0, media: 0, thinking: false };
  const walk = (list: unknown[], depth: number): string | undefined => {
    for (const block of list) {
      if (!isRecord(block) || typeof block.type !== "string" || !BLOCK_TYPES.includes(block.type)) {
        return `unknown block ${JSON.stringify(isRecord(block) ? block.type : block)}`;
      }
      measure.blocks += 1;
      measure.depth = Math.max(measure.depth, depth + 1);
      if (MEDIA_BLOCKS.includes(block.type)) measure.media += 1;
      if (block.type === "thinking") measure.thinking = true;
      for (const key of ["text", "summary", "credit", "caption"]) measure.text += richText(block[key]);
      if (typeof block.code === "string") measure.text += block.code;
      if (typeof block.expression === "string") measure.text += block.expression;
      if (Array.isArray(block.blocks)) {
        const problem = walk(block.blocks, depth + 1);
        if (problem) return problem;
      }
      if (block.type === "list" && Array.isArray(block.items)) {
        for (const item of block.items) {
          measure.blocks += 1;
          const inner = isRecord(item) && Array.isArray(item.blocks) ? item.blocks : [];
          const problem = walk(inner, depth + 2);
          if (problem) return problem;
        }
      }
      if (block.type === "table" && Array.isArray(block.cells)) {
        for (const row of block.cells) {
          if (!Array.isArray(row)) return "a table row is not an array";
          measure.blocks += 1;
          measure.columns = Math.max(
            measure.columns,
            row.reduce(
              (sum: number, cell) => sum + (isRecord(cell) && typeof cell.colspan === "number" ? cell.colspan : 1),
              0,
            ),
          );
          for (const cell of row) if (isRecord(cell)) measure.text += richText(cell.text);
        }
      }
    }
    return undefined;
  };
  const problem = walk(blocks, 0);
  return problem ?? measure;
}

/** The characters of a RichText: a string, an array of them, or an object with a `text` (and nested ones). */
function richText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(richText).join("");
  if (isRecord(value)) return richText(value.text);
  return "";
}
