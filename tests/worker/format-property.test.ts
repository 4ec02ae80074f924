import { describe, expect, it } from "vitest";
import { markdownToTelegramHtml } from "../../src/telegram/format.ts";
import { renderPieces } from "../../src/telegram/render.ts";
import { TELEGRAM_MESSAGE_LIMIT } from "../../src/telegram/split.ts";
import { htmlProblem } from "../fakes/telegram-html.ts";

/** A small seeded generator, so that a failure names a case that can be run again. */
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]! };
}

/** Pieces a model might write, well-formed or not: emphasis, code, links, lists, tables, raw HTML and entities. */
const PIECES = [
  "word",
  " ",
  " ",
  "\n",
  "\n\n",
  "**",
  "*",
  "_",
  "__",
  "~~",
  "`",
  "```",
  "```python\n",
  "# ",
  "## ",
  "> ",
  "- ",
  "1. ",
  "  - ",
  "| a | b |\n|---|---|\n| 1 | 2 |\n",
  "|",
  "[link](https://example.com)",
  "[bad](javascript:alert(1))",
  "![img](https://example.com/x.png)",
  "<b>",
  "</b>",
  "<script>",
  '<a href="x">',
  "</i>",
  "<br>",
  "&",
  "&amp;",
  "&lt;",
  "&nbsp;",
  "&#128512;",
  "&bogus;",
  "<",
  ">",
  '"',
  "'",
  "\\",
  "😀",
  "ß",
  "<tg-spoiler>",
  "---\n",
  "- [ ] task\n",
  "- [x] done\n",
  "***",
  "`code`",
  "    indented code\n",
  "<!-- c -->",
  "<pre>",
  "</pre>",
];

describe("Markdown to Telegram HTML, over random input", () => {
  it("is checked by a parser that refuses what Telegram refuses", () => {
    for (const bad of ["<b><i>x</b></i>", "<b>open", "</i>", "<script>x</script>", "&bogus;", "<a>x</a>", "a < b"]) {
      expect(htmlProblem(bad), bad).toBeDefined();
    }
    expect(htmlProblem('<b>bold <i>both</i></b> <a href="https://x.y">l</a> &amp; &#128512;')).toBeUndefined();
  });

  it("never produces HTML Telegram's parser would refuse, and every piece fits a message", () => {
    for (let seed = 1; seed <= 1500; seed++) {
      const random = generator(seed);
      const length = 1 + Math.floor(random.next() * 60);
      const markdown = Array.from({ length }, () => random.pick(PIECES)).join("");
      const html = markdownToTelegramHtml(markdown);
      const problem = htmlProblem(html);
      expect(problem, `seed ${seed}: ${JSON.stringify(markdown)} → ${JSON.stringify(html)}`).toBeUndefined();
    }
  });

  it("keeps every piece of a long random answer valid and within the limit", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const random = generator(seed * 7919);
      const markdown = Array.from({ length: 3000 }, () => random.pick(PIECES)).join("");
      for (const piece of renderPieces(markdown, TELEGRAM_MESSAGE_LIMIT)) {
        if (piece.html !== undefined) expect(htmlProblem(piece.html), `seed ${seed}`).toBeUndefined();
        expect(Array.from(piece.html ?? piece.piece).length).toBeLessThanOrEqual(TELEGRAM_MESSAGE_LIMIT * 2);
      }
    }
  });
});

describe("what renders", () => {
  it("turns a table into aligned columns in a monospace block", () => {
    const html = markdownToTelegramHtml(
      "| Fruit | Qty | Price |\n|:--|:-:|--:|\n| **Apple** | 3 | 1.20 |\n| Banana & co | 12 | 0.5 |",
    );
    expect(html).toBe(
      [
        "<pre>Fruit       | Qty | Price",
        "------------+-----+------",
        "Apple       | 3   |  1.20",
        "Banana &amp; co | 12  |   0.5</pre>",
      ].join("\n"),
    );
  });

  it("renders headings, nested lists and links", () => {
    expect(markdownToTelegramHtml("# Plan\n\n1. first\n   - detail [docs](https://example.com)\n2. second")).toBe(
      '<b>Plan</b>\n\n1. first\n   • detail <a href="https://example.com">docs</a>\n2. second',
    );
  });
});
