/**
 * A rich message (Bot API 10.1) as a Telegram client draws it, for the playground's page: its Markdown rendered to
 * HTML with tables, headings, task lists, quotes, code, `<details>` and a draft's `<tg-thinking>` block, and its
 * formulas shown as code (a client typesets them; the page only marks them). The page keeps only the tags it draws
 * (src/console/playground-script.ts), so raw HTML the bot let through cannot run there. Plain, erasable TypeScript.
 */
import { Marked, type TokenizerAndRendererExtension } from "marked";

const displayMath: TokenizerAndRendererExtension = {
  name: "displayMath",
  level: "block",
  start: (source) => source.match(/^\$\$/m)?.index,
  tokenizer(source) {
    const match = /^\$\$([\s\S]+?)\$\$[ \t]*(?:\n+|$)/.exec(source);
    return match ? { type: "displayMath", raw: match[0], text: match[1]!.trim() } : undefined;
  },
  renderer: (token) => `<pre class="math">${escapeHtml(String(token.text))}</pre>\n`,
};

const inlineMath: TokenizerAndRendererExtension = {
  name: "inlineMath",
  level: "inline",
  start: (source) => source.indexOf("$"),
  tokenizer(source) {
    const match = /^\$(?!\s)([^$\n]+?)(?<!\s)\$(?!\d)/.exec(source);
    return match ? { type: "inlineMath", raw: match[0], text: match[1]! } : undefined;
  },
  renderer: (token) => `<code class="math">${escapeHtml(String(token.text))}</code>`,
};

const marked = new Marked({ gfm: true, async: false, extensions: [displayMath, inlineMath] });

/** The HTML a client would draw for a `rich_message` (markdown, html, or blocks as their text). */
export function richHtml(input: Record<string, unknown>): string {
  if (typeof input.markdown === "string") {
    // A thinking block is a block of its own: drawn as a box the person can fold.
    const markdown = input.markdown
      .replace(/<tg-thinking>/g, '<details class="thinking" open><summary>Thinking</summary>')
      .replace(/<\/tg-thinking>/g, "</details>");
    return marked.parse(markdown) as string;
  }
  if (typeof input.html === "string") return input.html;
  return `<p>${escapeHtml(JSON.stringify(input.blocks ?? ""))}</p>`;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
