import { Marked, type Token, type Tokens } from "marked";
import {
  backticksAt,
  closingBackticks,
  isAsciiPunctuation,
  isCharacter,
  isSetextUnderline,
  linkAt,
  mathAt,
  Paragraphs,
} from "./rich-inline-scan.ts";
import { withShortInfoStrings } from "./split.ts";

/**
 * The model's Markdown as Telegram's rich Markdown (Bot API 10.1, `InputRichMessage.markdown`). Telegram's is
 * GitHub-flavoured, so most of what a model writes is already right and is kept as written: paragraphs, emphasis,
 * code, lists, task lists, quotes, tables, headings, rules, footnotes, `$…$` and `$$…$$`. What differs is changed:
 *
 * - Raw HTML: Telegram parses its own tags inside Markdown; the model's HTML is shown as text (as on the HTML path),
 *   except a balanced `<details>`/`<summary>`, which is structure. So `<tg-thinking>` (drafts only) never slips in.
 * - Images: `![alt](url)` is a media block Telegram would fetch; it becomes a link, as on the HTML path.
 * - Links: only http(s), tg, mailto, tel and in-document (#) targets stay links; others keep their text.
 * - Math: `$` that does not open or close math by pandoc's rule (a price: "$5 and $10") is escaped; `\(…\)` and
 *   `\[…\]` become `$…$` and `$$…$$`.
 * - `||` (Telegram's spoiler) and `==` (its marked text) are escaped where a model means operators.
 * - A table over Telegram's 20 columns becomes a code block; a fence's over-long info string is cut.
 *
 * Code (fences, indented blocks, spans) is never touched. marked finds the blocks; the inline text is scanned here.
 */
const lexer = new Marked({ gfm: true });

/** What an answer holds that Telegram's plain HTML messages cannot show. */
export type RichStructure = "table" | "heading" | "task list" | "math" | "footnote" | "details";

export interface RichMarkdown {
  markdown: string;
  structure: ReadonlySet<RichStructure>;
}

/** Telegram's rich-message limit on a table's columns. */
const MAX_TABLE_COLUMNS = 20;
const SAFE_TARGET = /^(?:https?:|tg:|mailto:|tel:|#)/i;
const KEPT_TAGS = new Set(["details", "summary"]);

export function toRichMarkdown(markdown: string): RichMarkdown {
  const source = withShortInfoStrings(markdown.replace(/\r\n?/g, "\n"));
  const tokens = lexer.lexer(source);
  const first = convert(source, tokens, true);
  // An unbalanced <details> would leave the rest of the answer inside it (or be refused): shown as text instead.
  const result = first.detailsBalance === 0 ? first : convert(source, tokens, false);
  const structure = new Set(result.structure);
  // The blocks are the source's: converting changes inline text, not which blocks there are.
  collectStructure(tokens, structure);
  if (hasFootnotes(result.markdown)) structure.add("footnote");
  return { markdown: result.markdown, structure };
}

interface Conversion {
  markdown: string;
  structure: Set<RichStructure>;
  /** Kept <details> minus </details>: 0 when balanced. */
  detailsBalance: number;
}

function convert(source: string, tokens: readonly Token[], keepDetails: boolean): Conversion {
  const context: ScanContext = { keepDetails, structure: new Set(), detailsBalance: 0, table: false };
  let offset = 0;
  let output = "";
  for (const token of tokens) {
    // Top-level tokens tile the source; the source's own slice is used (marked normalises the last line's end).
    const raw = source.slice(offset, offset + token.raw.length);
    offset += token.raw.length;
    switch (token.type) {
      case "code":
      case "space":
      case "hr":
      case "def":
        output += raw;
        break;
      case "table":
        output +=
          (token as Tokens.Table).header.length > MAX_TABLE_COLUMNS
            ? asCodeBlock(raw)
            : convertText(raw, { ...context, table: true });
        break;
      default:
        output += convertText(raw, context);
    }
  }
  return {
    markdown: output + source.slice(offset),
    structure: context.structure,
    detailsBalance: context.detailsBalance,
  };
}

function asCodeBlock(raw: string): string {
  const body = raw.replace(/\n+$/, "");
  const trailing = raw.slice(body.length);
  const fence = "`".repeat(Math.max(3, ...[...body.matchAll(/`+/g)].map((match) => match[0].length + 1)));
  return `${fence}\n${body}\n${fence}${trailing || "\n"}`;
}

interface ScanContext {
  keepDetails: boolean;
  structure: Set<RichStructure>;
  detailsBalance: number;
  /** In a table: `||` is an empty cell, not a spoiler. */
  table: boolean;
}

/** A fence line inside containers (quotes, list items): its prefix, marker and info string. */
const FENCE_LINE = /^((?:[ \t]*(?:>[ \t]?|(?:[-*+]|\d{1,9}[.)])[ \t]+))*)[ \t]{0,3}(`{3,}|~{3,})(.*)$/;

/**
 * A block's text: fenced code inside it (in a list item or a quote) is copied as it is, the runs of lines between
 * are converted inline.
 */
function convertText(raw: string, context: ScanContext): string {
  const lines = raw.split("\n");
  const output: string[] = [];
  let run: string[] = [];
  let fence: { marker: string } | undefined;
  const flush = () => {
    if (run.length > 0) output.push(convertInline(run.join("\n"), context));
    run = [];
  };
  for (const line of lines) {
    const match = FENCE_LINE.exec(line);
    if (fence) {
      output.push(line);
      if (match && match[2]![0] === fence.marker[0] && match[2]!.length >= fence.marker.length && !match[3]!.trim()) {
        fence = undefined;
      }
      continue;
    }
    if (match && !(match[2]![0] === "`" && match[3]!.includes("`"))) {
      flush();
      output.push(line);
      fence = { marker: match[2]! };
      continue;
    }
    run.push(line);
  }
  flush();
  return output.join("\n");
}

/** The characters the inline scan stops at; the text between them is copied as it is. */
const SPECIAL = /[\\`$<![|=&]/g;

/** Scans inline text, keeping code spans, links' targets and autolinks, converting what Telegram reads otherwise. */
function convertInline(text: string, context: ScanContext): string {
  const paragraphs = new Paragraphs(text);
  let output = "";
  let index = 0;
  while (index < text.length) {
    SPECIAL.lastIndex = index;
    const special = SPECIAL.exec(text);
    if (!special) {
      output += text.slice(index);
      break;
    }
    output += text.slice(index, special.index);
    index = special.index;
    const char = text[index]!;
    const next = text[index + 1];
    switch (char) {
      case "\\": {
        if (next === "(" || next === "[") {
          const close = next === "(" ? "\\)" : "\\]";
          const end = text.slice(0, paragraphs.near(index)).indexOf(close, index + 2);
          if (end > index + 2) {
            const body = text.slice(index + 2, end).trim();
            if (body !== "" && !body.includes("$")) {
              context.structure.add("math");
              output += next === "(" ? `$${body}$` : `$$${body}$$`;
              index = end + 2;
              continue;
            }
          }
        }
        // A backslash escape (or a backslash before something else) stays as written.
        output += next !== undefined && isAsciiPunctuation(next) ? char + next : char;
        index += next !== undefined && isAsciiPunctuation(next) ? 2 : 1;
        continue;
      }
      case "`": {
        const run = backticksAt(text, index);
        const close = closingBackticks(text, index + run, run, paragraphs);
        const end = close === undefined ? index + run : close + run;
        output += text.slice(index, end);
        index = end;
        continue;
      }
      case "$": {
        const math = mathAt(text, index, paragraphs);
        if (math !== undefined) {
          context.structure.add("math");
          output += text.slice(index, math);
          index = math;
        } else {
          output += "\\$";
          index += 1;
        }
        continue;
      }
      case "<": {
        const step = angleAt(text, index, context);
        output += step.output;
        index = step.index;
        continue;
      }
      case "!":
      case "[": {
        const image = char === "!";
        if (image && next !== "[") break;
        const step = bracketAt(text, index, { context, paragraphs, image });
        output += step.output;
        index = step.index;
        continue;
      }
      case "|":
        if (next === "|" && !context.table) {
          output += "\\|\\|";
          index += 2;
          continue;
        }
        break;
      case "=":
        if (next === "=" && !isSetextUnderline(text, index)) {
          output += "\\=\\=";
          index += 2;
          continue;
        }
        break;
      case "&": {
        // A numeric reference to no character (0, a surrogate, past U+10FFFF) is shown as written.
        const reference = /^&#(x[0-9a-f]{1,8}|\d{1,9});/i.exec(text.slice(index, index + 14));
        if (reference && !isCharacter(reference[1]!)) {
          output += "\\&";
          index += 1;
          continue;
        }
        break;
      }
    }
    output += char;
    index += 1;
  }
  return output;
}

/** What one step of the inline scan wrote, and where the scan goes on. */
interface InlineStep {
  output: string;
  index: number;
}

/** At a "<": an autolink or a kept tag as written, else the bracket as text (escaped where it could open a tag). */
function angleAt(text: string, index: number, context: ScanContext): InlineStep {
  const rest = text.slice(index, index + 600);
  const autolink = /^<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9.-]+)>/.exec(
    rest,
  );
  if (autolink) return { output: autolink[0], index: index + autolink[0].length };
  const tag = /^<(\/?)([A-Za-z][A-Za-z0-9-]*)(?:\s[^<>]*)?>/.exec(rest);
  if (tag && context.keepDetails && KEPT_TAGS.has(tag[2]!.toLowerCase())) {
    if (tag[2]!.toLowerCase() === "details") {
      context.detailsBalance += tag[1] ? -1 : 1;
      context.structure.add("details");
    }
    return { output: tag[0], index: index + tag[0].length };
  }
  // Anything that could open a tag, a comment or a declaration is shown as text.
  return { output: /^<[A-Za-z/!?]/.test(rest) ? "\\<" : "<", index: index + 1 };
}

/** At a "[" (or an image's "!["): a link with a safe target, its label alone otherwise, or the bracket as text. */
function bracketAt(
  text: string,
  index: number,
  at: { context: ScanContext; paragraphs: Paragraphs; image: boolean },
): InlineStep {
  const { image } = at;
  const link = linkAt(text, image ? index + 1 : index, at.paragraphs);
  // An image's "!" before a bracket that is not a link: the bracket is read again as text.
  if (!link) return { output: image ? "!" : "[", index: index + 1 };
  const label = convertInline(link.label, at.context);
  if (link.target === undefined) {
    // A reference link, a footnote or a task box: kept as written (a reference image becomes a link).
    return { output: `${image && text[link.end] !== "[" ? "!" : ""}[${label}]`, index: link.end };
  }
  if (SAFE_TARGET.test(link.target.trim().replace(/^</, ""))) {
    const shown = label.trim() === "" ? link.target.trim().replace(/^<|>$/g, "") : label;
    return { output: `[${shown}](${link.rawTarget})`, index: link.end };
  }
  return { output: label, index: link.end };
}

function hasFootnotes(markdown: string): boolean {
  return /^ {0,3}\[\^[^\]\s]+\]:/m.test(markdown) && /\[\^[^\]\s]+\](?!:)/.test(markdown);
}

/** Adds the structures marked finds: tables, headings, task lists (at any depth). */
function collectStructure(tokens: Token[], structure: Set<RichStructure>): void {
  for (const token of tokens) {
    switch (token.type) {
      case "table":
        structure.add("table");
        break;
      case "heading":
        structure.add("heading");
        break;
      case "list":
        for (const item of (token as Tokens.List).items) {
          if (item.task) structure.add("task list");
          collectStructure(item.tokens, structure);
        }
        break;
      case "blockquote":
        collectStructure((token as Tokens.Blockquote).tokens, structure);
        break;
    }
  }
}
