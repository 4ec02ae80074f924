import { renderPieces } from "./render.ts";
import { RICH_BUDGET } from "./rich-limits.ts";
import { type RichStructure, toRichMarkdown } from "./rich-markdown.ts";
import { repairPartial } from "./rich-partial.ts";
import { type RichBudget, splitRich } from "./rich-split.ts";

/** An answer as rich messages: Telegram's Markdown in pieces within the limits, and what needs a rich message. */
export interface RichRendering {
  pieces: string[];
  structure: ReadonlySet<RichStructure>;
  /** The model's Markdown it was made from. */
  markdown: string;
}

/** The model's Markdown as rich messages, or undefined when it cannot be one (see splitRich); nothing sent. */
export function renderRich(markdown: string): RichRendering | undefined {
  const rich = toRichMarkdown(markdown);
  const pieces = splitRich(rich.markdown);
  if (pieces === undefined || pieces.length === 0) return undefined;
  return { pieces, structure: rich.structure, markdown };
}

/** Below this length an answer is one HTML message for sure (rendering never doubles a text without structure). */
const SURELY_ONE_MESSAGE = 2_000;

/**
 * Whether an answer is better as a rich message: it has structure HTML cannot show, or the HTML path would need
 * more than one message for it.
 */
export function needsRich(rendering: RichRendering): boolean {
  if (rendering.structure.size > 0) return true;
  return rendering.markdown.length > SURELY_ONE_MESSAGE && renderPieces(rendering.markdown).length > 1;
}

/**
 * Whether `needsRich` could say yes to this answer, decided without rendering it: false only for a short answer with
 * none of the characters any structure starts with (tables' `|`, headings' `#` or a setext underline, task lists'
 * and footnotes' `[`, math's `$` and `\\(`, `<details>`). Most chat answers are such prose; the HTML path then
 * parses them once instead of twice (the rich rendering was a thirtieth of a plain turn's CPU).
 */
export function mayNeedRich(markdown: string): boolean {
  return markdown.length > SURELY_ONE_MESSAGE || /[|#[$\\<]/.test(markdown) || SETEXT_UNDERLINE.test(markdown);
}

/** A line that can turn the paragraph above it into a heading. */
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/m;

/**
 * A half-written answer as it would look now (see repairPartial), in rich pieces within `budget`: the pieces already
 * complete and the one being written, last. Where the text cannot be a rich message (nesting past the limits), it is
 * shown as code rather than not at all.
 */
export function renderRichPartial(markdown: string, budget: RichBudget = RICH_BUDGET): string[] {
  if (markdown.trim() === "") return [];
  const pieces = splitRich(toRichMarkdown(repairPartial(markdown)).markdown, budget);
  return pieces ?? [asCodeBlock(markdown.slice(-(budget.characters - 100)))];
}

/** Plain text as rich Markdown that shows it as it is (every ASCII punctuation mark escaped). */
export function escapeMarkdown(text: string): string {
  return text.replace(/[!-/:-@[-`{-~]/g, (char) => `\\${char}`).replace(/\n/g, " ");
}

function asCodeBlock(text: string): string {
  const fence = "`".repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((match) => match[0].length + 1)));
  return `${fence}\n${text}\n${fence}`;
}
