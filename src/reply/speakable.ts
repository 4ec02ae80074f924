import { Marked, type Tokens } from "marked";

/**
 * An answer's Markdown as prose to be read aloud: the words of emphasis, links and inline code without their marks
 * (no asterisks read out), headings and list items as sentences, and what cannot be spoken named in one sentence
 * instead: a code block ("The written answer shows Python code here."), a table ("… a table here, with 3 rows."),
 * an image by its description. Raw HTML loses its tags.
 */
const speech = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    space: () => "",
    paragraph({ tokens }) {
      return `${this.parser.parseInline(tokens)}\n\n`;
    },
    heading({ tokens }) {
      return `${sentence(this.parser.parseInline(tokens))}\n\n`;
    },
    blockquote({ tokens }) {
      return `${this.parser.parse(tokens).trim()}\n\n`;
    },
    code({ lang }) {
      const language = lang?.match(/^[A-Za-z][\w+#-]{0,31}/)?.[0];
      return `The written answer shows ${language ? `${spokenLanguage(language)} ` : ""}code here.\n\n`;
    },
    hr: () => "",
    html: ({ text }) => text.replace(/<[^>]*>/g, ""),
    list(token: Tokens.List) {
      const items = token.items.map((item) => sentence(this.parser.parse(item.tokens).replace(/\s+/g, " ").trim()));
      return `${items.join("\n")}\n\n`;
    },
    checkbox: () => "",
    table(token: Tokens.Table) {
      const rows = token.rows.length;
      return `The written answer has a table here, with ${rows} row${rows === 1 ? "" : "s"}.\n\n`;
    },
    strong({ tokens }) {
      return this.parser.parseInline(tokens);
    },
    em({ tokens }) {
      return this.parser.parseInline(tokens);
    },
    del({ tokens }) {
      return this.parser.parseInline(tokens);
    },
    codespan: ({ text }) => decodeEntities(text),
    br: () => " ",
    link({ href, tokens }) {
      const label = this.parser.parseInline(tokens);
      // A bare URL read out letter by letter helps nobody.
      return label === href || /^https?:\/\//.test(label) ? "a link" : label;
    },
    image: ({ text }) => (text ? `an image of ${text}` : "an image"),
    text(token: Tokens.Text | Tokens.Escape) {
      return "tokens" in token && token.tokens ? this.parser.parseInline(token.tokens) : decodeEntities(token.text);
    },
  },
});

/** What is read aloud, and whether it is the whole answer or its first part. */
export interface SpeakableText {
  text: string;
  /** The answer was longer than `maxChars` (as speech): `text` is its beginning, cut at a sentence. */
  cut: boolean;
  /** The length of the whole answer as speech. */
  fullLength: number;
}

export function speakableText(markdown: string, maxChars: number): SpeakableText {
  const full = (speech.parse(markdown) as string)
    .replace(/[ \t]+/g, " ")
    .replace(/ *\n */g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  if (full.length <= maxChars) return { text: full, cut: false, fullLength: full.length };
  return { text: cutAtSentence(full, maxChars), cut: true, fullLength: full.length };
}

/** The longest beginning within `maxChars` that ends a sentence (or a line), else a word. */
function cutAtSentence(text: string, maxChars: number): string {
  const head = text.slice(0, maxChars);
  const sentenceEnd = Math.max(
    ...[". ", "! ", "? ", "。", "！", "？", "\n"].map((mark) => {
      const at = head.lastIndexOf(mark);
      return at < 0 ? -1 : at + mark.trimEnd().length;
    }),
  );
  if (sentenceEnd > maxChars / 2) return head.slice(0, sentenceEnd).trim();
  const wordEnd = head.lastIndexOf(" ");
  return `${(wordEnd > maxChars / 2 ? head.slice(0, wordEnd) : head).trim()}…`;
}

/** A line as a sentence: ends in punctuation (a heading or a list item reads as one). */
function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") return "";
  return /[.!?:;…。！？]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

const LANGUAGE_NAMES: Record<string, string> = {
  js: "JavaScript",
  javascript: "JavaScript",
  ts: "TypeScript",
  typescript: "TypeScript",
  py: "Python",
  python: "Python",
  sh: "shell",
  bash: "shell",
  shell: "shell",
  json: "JSON",
  html: "HTML",
  css: "CSS",
  sql: "SQL",
  rs: "Rust",
  rust: "Rust",
  go: "Go",
};

function spokenLanguage(language: string): string {
  return LANGUAGE_NAMES[language.toLowerCase()] ?? language;
}

function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");
}
