import { Marked, type Tokens } from "marked";

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
      const rows = [token.header, ...token.rows].map((row) =>
        row.map((cell) => plainTextOf(this.parser.parseInline(cell.tokens))),
      );
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
  const html = telegram.parse(markdown) as string;
  return html.replace(/\n{3,}/g, "\n\n").trim();
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
 * Text content needs only &, < and > escaped in Telegram HTML; attribute values also need quotes escaped. An entity
 * the model wrote that Telegram understands (&amp; &lt; &gt; &quot; and numeric ones) is kept, not escaped twice.
 */
function escapeHtml(text: string): string {
  return text
    .replace(/&(?!(?:amp|lt|gt|quot|#\d{1,7}|#x[0-9a-f]{1,6});)/gi, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

function escapeAttribute(text: string): string {
  return escapeHtml(text).replace(/"/g, "&quot;");
}

function isSafeHref(href: string): boolean {
  return /^(https?:|tg:|mailto:)/i.test(href);
}
