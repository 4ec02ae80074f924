import { Marked, type Tokens } from "marked";
import { isBlankForTelegram } from "./split.ts";

/**
 * The model's Markdown as Telegram HTML. Telegram's HTML mode knows only a few tags (b, i, s, u, code, pre, a,
 * blockquote, tg-spoiler), so headings become bold lines, lists become bullet lines (nested ones indented) and tables
 * become aligned columns in a monospace block; raw HTML in the model's text is shown as text. marked parses; this renderer only chooses the tags.
 */
const telegram = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    space: () => "",
    paragraph({ tokens }) {
      return `${this.parser.parseInline(tokens)}\n\n`;
    },
    heading({ tokens }) {
      return `<b>${this.parser.parseInline(tokens)}</b>\n\n`;
    },
    blockquote({ tokens }) {
      return `<blockquote>${this.parser.parse(tokens).trim()}</blockquote>\n\n`;
    },
    code({ text, lang }) {
      // A language is a short word; a long info string is not one, and would only bloat the message.
      const language = lang?.match(/^[\w+#-]{1,32}(?![\w+#-])/)?.[0];
      const body = escapeHtml(text.replace(/\n$/, ""));
      return language
        ? `<pre><code class="language-${escapeAttribute(language)}">${body}</code></pre>\n\n`
        : `<pre>${body}</pre>\n\n`;
    },
    hr: () => "———\n\n",
    html: ({ text }) => escapeHtml(text),
    list(token: Tokens.List) {
      const start = typeof token.start === "number" ? token.start : 1;
      const lines = token.items.map((item, index) => {
        const marker = token.ordered ? `${start + index}.` : "•";
        const box = item.task ? (item.checked ? "☑ " : "☐ ") : "";
        // A nested list starts on its own line under the item's text, indented with the item's body.
        const body = item.tokens
          .map((child) => (child.type === "list" ? `\n${this.parser.parse([child])}` : this.parser.parse([child])))
          .join("")
          .trim()
          .replace(/\n{2,}/g, "\n")
          .replace(/\n/g, "\n   ");
        return `${marker} ${box}${body}`;
      });
      return `${lines.join("\n")}\n\n`;
    },
    checkbox: () => "",
    table(token: Tokens.Table) {
      // Telegram's HTML has no tables: the cells' plain text, padded into columns, in a monospace block.
      const lines = token.raw.replace(/\n+$/, "").split("\n");
      const rows = [token.header, ...token.rows].map((row, index) => {
        const cells = row.map((cell) => plainTextOf(this.parser.parseInline(cell.tokens)));
        // A row with more cells than the table's columns (an unescaped | in a cell) loses the rest in GFM: keep it in
        // the last column.
        const excess = rawCells(lines[index === 0 ? 0 : index + 1] ?? "").slice(row.length);
        if (excess.some((cell) => cell !== "") && cells.length > 0) {
          const rest = excess.map((cell) => plainTextOf(this.parser.parseInline(telegram.Lexer.lexInline(cell))));
          cells[cells.length - 1] = [cells.at(-1), ...rest].join(" | ");
        }
        return cells;
      });
      const widths = token.header.map((_, column) =>
        Math.max(1, ...rows.map((row) => Array.from(row[column] ?? "").length)),
      );
      const line = (row: string[]) =>
        row
          .map((cell, column) => {
            const padding = " ".repeat(Math.max(0, widths[column]! - Array.from(cell).length));
            return token.align[column] === "right" ? padding + cell : cell + padding;
          })
          .join(" | ")
          .trimEnd();
      const rule = widths.map((width) => "-".repeat(width)).join("-+-");
      const [header, ...body] = rows;
      return `<pre>${escapeHtml([line(header!), rule, ...body.map(line)].join("\n"))}</pre>\n\n`;
    },
    strong({ tokens }) {
      return `<b>${this.parser.parseInline(tokens)}</b>`;
    },
    em({ tokens }) {
      return `<i>${this.parser.parseInline(tokens)}</i>`;
    },
    del({ tokens }) {
      return `<s>${this.parser.parseInline(tokens)}</s>`;
    },
    codespan: ({ text }) => `<code>${escapeHtml(text)}</code>`,
    br: () => "\n",
    link({ href, tokens }) {
      const label = this.parser.parseInline(tokens);
      return isSafeHref(href) ? `<a href="${escapeAttribute(href)}">${label}</a>` : label;
    },
    image({ href, text }) {
      return isSafeHref(href) ? `<a href="${escapeAttribute(href)}">${escapeHtml(text || href)}</a>` : escapeHtml(text);
    },
    text(token: Tokens.Text | Tokens.Escape) {
      return "tokens" in token && token.tokens ? this.parser.parseInline(token.tokens) : escapeHtml(token.text);
    },
  },
});

export function markdownToTelegramHtml(markdown: string): string {
  return isPlainProse(markdown) ? tidy(markdown) : renderMarkdown(markdown);
}

/** The same, always through marked (the reference `markdownToTelegramHtml`'s plain prose is tested against). */
export function renderMarkdown(markdown: string): string {
  return tidy(telegram.parse(markdown) as string);
}

function tidy(html: string): string {
  return html.replace(/\n{3,}/g, "\n\n").trim();
}

/**
 * Characters and line shapes any Markdown (or HTML escaping) starts with: emphasis, code, links, autolinks (with
 * `://`, `www.` or an e-mail's `@`), HTML and entities, tables, headings and escapes anywhere; a list, quote, setext
 * underline, rule or indented code at a line's start; a hard break (trailing space) at its end; and whitespace other
 * than spaces and newlines, which marked normalizes.
 */
const MARKDOWN_SYNTAX = /[*_~`[\]<>#|\\&@\0]|:\/\/|www\.|^[ \-+=>\d]| $|[^\S\n ]/im;

/**
 * Text with none of MARKDOWN_SYNTAX: marked would render it as its paragraphs, unchanged (a plain answer, the most
 * common kind, then costs no parse: a thirtieth of a plain turn's CPU). A test compares the two on generated text.
 */
export function isPlainProse(markdown: string): boolean {
  return !MARKDOWN_SYNTAX.test(markdown);
}

/** A table row's cells as GFM splits them (at each | not escaped), all of them. */
function rawCells(line: string): string[] {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1);
  return row.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

/** The text of rendered inline HTML: tags dropped, our escapes undone. */
function plainTextOf(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")
    .trim();
}

/** What Telegram counts against its 4096 limit: the text once tags are removed and entities decoded. */
export function visibleLength(html: string): number {
  return html.replace(/<[^>]*>/g, "").replace(/&(lt|gt|amp|quot|#39);/g, "x").length;
}

/**
 * Whether this HTML shows no text at all (an empty code block renders as `<pre></pre>`): Telegram refuses such a
 * message ("text must be non-empty"), so it must never be sent as HTML.
 */
export function rendersNothing(html: string): boolean {
  const text = html.replace(/<[^>]*>/g, "").replace(/&#(x[0-9a-f]+|\d+);/gi, (entity, code: string) => {
    const point = code[0] === "x" || code[0] === "X" ? Number.parseInt(code.slice(1), 16) : Number(code);
    return point <= 0x20 ? " " : entity;
  });
  return isBlankForTelegram(text);
}

/**
 * Text content needs only &, < and > escaped in Telegram HTML; attribute values also need quotes escaped. An entity
 * the model wrote that Telegram understands (&amp; &lt; &gt; &quot; and numeric ones) is kept, not escaped twice.
 */
export function escapeHtml(text: string): string {
  return text
    .replace(/&(?!(?:amp|lt|gt|quot|#\d{1,7}|#x[0-9a-f]{1,6});)/gi, "&amp;")
    .replace(/&#(x[0-9a-f]{1,6}|\d{1,7});/gi, (entity, code: string) =>
      // Telegram refuses a reference to half of a surrogate pair ("invalid Unicode characters"): shown as written.
      isSurrogate(code[0] === "x" || code[0] === "X" ? Number.parseInt(code.slice(1), 16) : Number(code))
        ? `&amp;${entity.slice(1)}`
        : entity,
    )
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

function isSurrogate(codePoint: number): boolean {
  return codePoint >= 0xd800 && codePoint <= 0xdfff;
}

function escapeAttribute(text: string): string {
  return escapeHtml(text).replace(/"/g, "&quot;");
}

function isSafeHref(href: string): boolean {
  return /^(https?:|tg:|mailto:)/i.test(href);
}
