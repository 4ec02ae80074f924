/**
 * Model answers for the property tests, random and adversarial (seeded, so that a failure names a case that can be
 * run again), and the check that nothing the model wrote went missing on the way to Telegram. No Node or Workers
 * imports: the Node property test and the worker end-to-end test both use it.
 */

/** A small seeded generator (an LCG). */
export function random(seed: number) {
  let state = (seed * 2654435761) >>> 0;
  const next = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return {
    next,
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
}

const WORDS = [
  "word",
  "answer",
  "Telegram",
  "naïve",
  "Grüße",
  "привет",
  "мир",
  "שלום",
  "مرحبا",
  "日本語",
  "한국어",
  "42",
  "3.14",
  "x_y",
  "snake_case_name",
  "CamelCase",
  "e\u0301te\u0301",
  "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
  "𝟙𝟚𝟛",
];

/** Bits of Markdown (and not quite Markdown) that a model writes, well-formed or not. */
const ATOMS = [
  " ",
  " ",
  " ",
  "\n",
  "\n\n",
  "  \n",
  "\t",
  "**",
  "*",
  "_",
  "__",
  "~~",
  "`",
  "``",
  "```",
  "```\n",
  "```python\n",
  "\n```\n",
  "~~~\n",
  "````\n",
  '```js title="a.js" {1,3}\n',
  `\`\`\`${"very-long-info-string-".repeat(4)}\n`,
  "```this is not a language at all, it is a sentence about the code below\n",
  "```a`b\n",
  "# ",
  "## ",
  "###### ",
  "> ",
  ">> ",
  "- ",
  "* ",
  "+ ",
  "1. ",
  "1) ",
  "  - ",
  "    - ",
  "    indented code\n",
  "- [ ] ",
  "- [x] ",
  "| a | b |\n|---|---|\n| 1 | 2 |\n",
  "| left | right |\n|:--|--:|\n| **b** | `c` |\n",
  "|",
  "---\n",
  "***\n",
  "___\n",
  "[link](https://example.com)",
  "[bad](javascript:alert(1))",
  "[x](https://example.com/a_(b))",
  "[](https://example.com/empty)",
  "![img](https://example.com/x.png)",
  "![](https://example.com/y.png)",
  "<https://example.com/auto>",
  "<someone@example.com>",
  "https://example.com/path?x=1&y=2",
  "www.example.org",
  "[",
  "]",
  "](",
  ")",
  "<",
  ">",
  "<>",
  "&",
  "&amp;",
  "&lt;",
  "&gt;",
  "&quot;",
  "&nbsp;",
  "&bogus;",
  "&#128512;",
  "&#x1F600;",
  "&#0;",
  "&#xD800;",
  "&#1114112;",
  "&#9999999;",
  "&#x110000;",
  "<b>",
  "</b>",
  "<i>x</i>",
  "<script>alert(1)</script>",
  '<a href="x">',
  "</a>",
  "<br>",
  "<br/>",
  "<!-- a comment -->",
  "<pre>",
  "</pre>",
  "<code>",
  "<tg-spoiler>",
  "<details><summary>more</summary>",
  "</details>",
  '"',
  "'",
  "\\",
  "\\*",
  "\\_",
  "$x^2$",
  "$$E = mc^2$$",
  "[^1]",
  "😀",
  "👨‍👩‍👧‍👦",
  "🇩🇪",
  "\u200b",
  "\u200f",
  "\u202e",
  "\u2028",
];

/** A random answer: mostly words, with Markdown atoms in between. */
function soup(generator: ReturnType<typeof random>, length: number): string {
  let text = "";
  while (text.length < length) {
    const roll = generator.next();
    if (roll < 0.45) text += generator.pick(WORDS);
    else if (roll < 0.55) text += " ";
    else text += generator.pick(ATOMS);
  }
  return text;
}

/** Prose of about `length` characters: sentences in paragraphs, as long answers are. */
function prose(generator: ReturnType<typeof random>, length: number): string {
  let text = "";
  while (text.length < length) {
    const sentence = Array.from({ length: 3 + generator.int(12) }, () => generator.pick(WORDS)).join(" ");
    text += `${sentence}. `;
    if (generator.next() < 0.2) text += "\n\n";
    if (generator.next() < 0.05) text += soup(generator, 40);
  }
  return text;
}

/** Structures that stress the splitter and the renderer at their edges. */
const SPECIALS: ((generator: ReturnType<typeof random>) => string)[] = [
  // A fence with a long info string around a long code block.
  (g) => `Here:\n\n\`\`\`${"info ".repeat(10 + g.int(40))}\n${"let x = 1;\n".repeat(300 + g.int(600))}\`\`\`\n\nDone.`,
  // A fence whose info string is one long word.
  (g) => `\`\`\`${"x".repeat(33 + g.int(200))}\n${"code line\n".repeat(1 + g.int(900))}\`\`\``,
  // An unclosed fence, long.
  (g) => `Start\n\n\`\`\`python\n${"print('hello')\n".repeat(200 + g.int(700))}`,
  // One word with no space to cut at.
  (g) => `${"a".repeat(3000 + g.int(9000))} end`,
  // Emoji and surrogate pairs, nothing to cut at but characters.
  (g) => "😀𝔘".repeat(1000 + g.int(3000)),
  // A long table.
  (g) =>
    `| n | name | value |\n|--:|:--|--|\n${Array.from({ length: 50 + g.int(300) }, (_, i) => `| ${i} | row ${i} | **${i * 7}** |`).join("\n")}`,
  // Deep nested lists.
  (g) =>
    Array.from({ length: 20 + g.int(100) }, (_, i) => `${"  ".repeat(i % 8)}- item ${i} ${g.pick(WORDS)}`).join("\n"),
  // Right-to-left prose.
  (g) => Array.from({ length: 200 + g.int(900) }, () => g.pick(["שלום", "עולם", "مرحبا", "بالعالم", "123"])).join(" "),
  // Only markup, nothing to say.
  (g) => g.pick(["```\n```", "**", "<!-- -->", "---", "- [ ] ", "```\n\n\n```", "> ", "|a|\n|-|", "\n\n\n"]),
  // A quote that runs over a message.
  (g) => Array.from({ length: 100 + g.int(400) }, (_, i) => `> line ${i} of the quote ${g.pick(WORDS)}`).join("\n"),
  // Lines of fences, opened and closed and opened.
  (g) => Array.from({ length: 30 + g.int(200) }, (_, i) => (i % 3 === 0 ? "```" : `code ${i}`)).join("\n"),
];

/** The length classes of the generated answers, around every limit that matters. */
export function generateAnswer(seed: number): string {
  const generator = random(seed);
  const roll = generator.next();
  const around = (length: number, spread: number) => length - spread + generator.int(2 * spread);
  if (roll < 0.55) return soup(generator, 1 + generator.int(300));
  if (roll < 0.62) return soup(generator, around(1024, 40));
  if (roll < 0.72) return prose(generator, around(4096, 120));
  if (roll < 0.76) return soup(generator, around(4096, 60));
  if (roll < 0.84) return prose(generator, 5000 + generator.int(9000));
  if (roll < 0.86) return prose(generator, around(12 * 4096, 3000));
  if (roll < 0.87) return prose(generator, 60_000 + generator.int(10_000));
  return generator.pick(SPECIALS)(generator);
}

/**
 * The runs of letters and digits a reader must find, in order, in what is delivered: the model's Markdown without
 * what is syntax rather than text (link and image targets, fence info strings, HTML entity names, task boxes, link
 * reference definitions, the numbers of ordered list items). What is delivered may hold more (list numbers, ☑, the language of a reopened fence).
 */
export function wordsOf(markdown: string): string[] {
  // Lines end at \n only (a regular expression's ^ and $ would also end them at U+2028, which Markdown does not).
  // A line's container markers: quotes (">", a space after it optional) and list items ("-", "1.", a space needed).
  const containers = String.raw`(?:[ \t]*(?:>[ \t]*|(?:[-*+]|\d+[.)])[ \t]+))*`;
  const text = withoutLinkTargets(markdown)
    .replace(/(^|\n) {0,3}\[[^\]\n]+\]:[^\n]*/g, "$1")
    .replace(new RegExp(String.raw`(^|\n)(${containers})\[[ xX]\]`, "g"), "$1$2")
    .replace(new RegExp(String.raw`(^|\n)(${containers}[ \t]*(?:\`{3,}|~{3,}))[^\n]*`, "g"), "$1$2")
    .replace(/&(?:#\d+|#x[\da-f]+|[a-z][a-z\d]*);/gi, " ")
    // An ordered list's numbers are renumbered (a list written 1. 1. 1. shows 1. 2. 3.).
    .replace(new RegExp(String.raw`(^|\n)(${containers}[ \t]*)\d+([.)])(?=[ \t\n]|$)`, "g"), "$1$2$3");
  return text.match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The text without the targets of links and images: `](destination "title")` as CommonMark reads it (a destination
 * without spaces and with balanced parentheses, or in angle brackets; an optional title).
 */
function withoutLinkTargets(markdown: string): string {
  const target =
    /^\(\s*(?:<[^>\n]*>|(?:[^\s()]|\((?:[^\s()]|\([^\s()]*\))*\))*)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/;
  let result = "";
  let index = 0;
  for (let at = markdown.indexOf("](", index); at !== -1; at = markdown.indexOf("](", index)) {
    const match = target.exec(markdown.slice(at + 1));
    result += markdown.slice(index, at + 1);
    index = match ? at + 1 + match[0].length : at + 1;
  }
  return result + markdown.slice(index);
}

/**
 * The first word of `markdown` that is not in `delivered` (the texts of the messages, in order), or undefined. When
 * `cut` (the answer ended with the cut note), words may be missing from the first missing one on.
 */
export function firstMissingWord(markdown: string, delivered: string[], options: { cut: boolean }): string | undefined {
  const haystack =
    delivered
      .join("\n")
      .match(/[\p{L}\p{N}]+/gu)
      ?.join("") ?? "";
  let cursor = 0;
  for (const word of wordsOf(markdown)) {
    const at = haystack.indexOf(word, cursor);
    if (at === -1) return options.cut ? undefined : word;
    cursor = at + word.length;
  }
  return undefined;
}

/** Blocks of the structure a rich message shows (and the HTML path cannot), well-formed as models write them. */
const RICH_BLOCKS: ((generator: ReturnType<typeof random>) => string)[] = [
  (g) => `${"#".repeat(1 + g.int(6))} ${prose(g, 10 + g.int(40)).trim()}`,
  (g) => {
    const columns = 1 + g.int(g.next() < 0.1 ? 30 : 6);
    const row = () => `| ${Array.from({ length: columns }, () => g.pick(WORDS)).join(" | ")} |`;
    const align = `|${Array.from({ length: columns }, () => g.pick([" --- ", ":--", "--:", ":-:"])).join("|")}|`;
    const rows = g.next() < 0.05 ? 400 + g.int(400) : 1 + g.int(12);
    return [row(), align, ...Array.from({ length: rows }, row)].join("\n");
  },
  (g) => Array.from({ length: 1 + g.int(8) }, () => `- [${g.pick([" ", "x"])}] ${prose(g, 20).trim()}`).join("\n"),
  (g) =>
    Array.from(
      { length: 2 + g.int(10) },
      (_, i) => `${"   ".repeat(Math.min(i % 4, 3))}${g.next() < 0.5 ? "-" : `${i + 1}.`} ${prose(g, 15).trim()}`,
    ).join("\n"),
  (g) => g.pick(["$E = mc^2$ and $a_1 + b_1$", "$$\\int_0^1 x^2 \\, dx = \\frac{1}{3}$$", "\\(x^2\\) and \\[y = 2\\]"]),
  (g) => `It costs $${1 + g.int(90)} and $${1 + g.int(90)}, or ${g.int(9)}$ each.`,
  (g) => `<details><summary>${prose(g, 10).trim()}</summary>\n\n${prose(g, 80).trim()}\n\n</details>`,
  (g) => `Text with a note[^${g.int(3)}].\n\n[^${g.int(3)}]: ${prose(g, 30).trim()}`,
  (g) =>
    `\`\`\`${g.pick(["ts", "python", "", "math"])}\n${"x = 1 | 2 $ <b> [a](b)\n".repeat(1 + g.int(g.next() < 0.05 ? 3000 : 20))}\`\`\``,
  (g) => `> ${prose(g, 60).trim()}\n> - quoted item\n> - [ ] quoted task`,
  () =>
    `A || B, a == b, <div>html</div>, ![chart](https://example.com/c.png), [run](javascript:x) and <tg-thinking>no</tg-thinking>`,
  (g) => prose(g, 50 + g.int(400)),
];

/** A model answer with rich structure (tables, headings, task lists, math, details, code), of any length. */
export function generateRichAnswer(seed: number): string {
  const generator = random(seed);
  const long = generator.next() < 0.15;
  const blocks: string[] = [];
  let length = 0;
  const target = long ? 10_000 + generator.int(60_000) : 100 + generator.int(3_000);
  while (length < target) {
    const block = generator.pick(RICH_BLOCKS)(generator);
    blocks.push(block);
    length += block.length;
  }
  return blocks.join("\n\n");
}
