import { describe, expect, it } from "vitest";
import {
  escapeHtml,
  isPlainProse,
  markdownToTelegramHtml,
  renderMarkdown,
  rendersNothing,
  visibleLength,
} from "../../src/telegram/format.ts";
import { renderPieces } from "../../src/telegram/render.ts";
import { CUT_NOTE, cutText, MAX_PIECES, splitMessage, TELEGRAM_MESSAGE_LIMIT } from "../../src/telegram/split.ts";

describe("Markdown to Telegram HTML", () => {
  it("uses only the tags Telegram knows", () => {
    const html = markdownToTelegramHtml(
      "# Title\n\nSome **bold**, *italic*, ~~gone~~ and `code`.\n\n- one\n- two\n\n1. first\n2. second\n\n> quoted\n\n```ts\nconst a = 1 < 2;\n```\n\n[link](https://example.com) <script>x</script>",
    );
    expect(html).toContain("<b>Title</b>");
    expect(html).toContain("<b>bold</b>, <i>italic</i>, <s>gone</s> and <code>code</code>.");
    expect(html).toContain("• one\n• two");
    expect(html).toContain("1. first\n2. second");
    expect(html).toContain("<blockquote>quoted</blockquote>");
    expect(html).toContain('<pre><code class="language-ts">const a = 1 &lt; 2;</code></pre>');
    expect(html).toContain('<a href="https://example.com">link</a>');
    expect(html).toContain("&lt;script&gt;");
    const tags = new Set([...html.matchAll(/<\/?([a-z-]+)/g)].map((match) => match[1]));
    for (const tag of tags) expect(["b", "i", "s", "code", "pre", "a", "blockquote"]).toContain(tag);
  });

  it("renders plain prose without marked exactly as marked would, and leaves anything else to marked", () => {
    // Words and punctuation, with now and then a piece any Markdown, HTML escaping or line shape starts with.
    const plain = [
      "Sure",
      "the",
      "answer",
      "is",
      "42",
      "café",
      "🙂",
      " ",
      " ",
      " ",
      ".",
      ",",
      "!",
      "?",
      ":",
      "'",
      '"',
      "(",
      ")",
      "-",
      "/",
      "%",
      "$",
      "\n",
      "\n\n",
    ];
    const syntax = [
      "*",
      "_",
      "~",
      "`",
      "#",
      "|",
      "\\",
      "&",
      "&amp;",
      "<",
      ">",
      "@",
      "[",
      "]",
      "www.",
      "https://",
      "1. ",
      "- ",
      "+ ",
      "> ",
      "=",
      "\t",
      "\r\n",
      "\u00a0",
      "  \n",
      " \n",
      "\n    ",
      "\n\n\n",
      "---",
      "2)",
    ];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pick = (from: readonly string[]) => from[Math.floor(random() * from.length)]!;
    let fast = 0;
    for (let index = 0; index < 3000; index++) {
      const pieces = Array.from({ length: 3 + Math.floor(random() * 40) }, () =>
        random() < 0.04 ? pick(syntax) : pick(plain),
      );
      const text = pieces.join(random() < 0.5 ? "" : " ");
      if (!isPlainProse(text)) continue;
      fast++;
      expect(markdownToTelegramHtml(text), JSON.stringify(text)).toBe(renderMarkdown(text));
    }
    expect(fast).toBeGreaterThan(300);
    for (const text of [
      "**a**",
      "a  \nb",
      "- a",
      "a\n===",
      "mail me@x.io",
      "www.x.io",
      "1. a",
      "a &amp; b",
      "    code",
    ]) {
      expect(isPlainProse(text), text).toBe(false);
    }
    expect(markdownToTelegramHtml("\n\nFirst line\nsecond.\n\n\n\nNext: 3 - 2 = 1!\n")).toBe(
      "First line\nsecond.\n\nNext: 3 - 2 = 1!",
    );
  });

  it("drops links that are not http(s), tg or mailto", () => {
    expect(markdownToTelegramHtml("[x](javascript:alert(1))")).toBe("x");
  });

  it("counts the visible length without tags or entities", () => {
    expect(visibleLength("<b>a&amp;b</b>")).toBe(3);
  });

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

  it("keeps the cells of a row longer than its table (an unescaped | in a cell) in the last column", () => {
    const html = markdownToTelegramHtml("| cmd | what |\n|---|---|\n| `a | b` | pipes **here** |");
    expect(html).toBe("<pre>cmd | what\n----+----------------\n`a  | b` | pipes here</pre>");
  });

  it("renders headings, nested lists and links", () => {
    expect(markdownToTelegramHtml("# Plan\n\n1. first\n   - detail [docs](https://example.com)\n2. second")).toBe(
      '<b>Plan</b>\n\n1. first\n   • detail <a href="https://example.com">docs</a>\n2. second',
    );
  });

  it("escapes a character reference to half a surrogate pair (Telegram refuses it)", () => {
    expect(escapeHtml("a &#xD800; b &#55357; c &#128512;")).toBe("a &amp;#xD800; b &amp;#55357; c &#128512;");
  });

  it("knows when HTML shows no text, as Telegram would refuse it", () => {
    expect(rendersNothing("<pre></pre>")).toBe(true);
    expect(rendersNothing('<pre><code class="language-js"> \n</code></pre>')).toBe(true);
    expect(rendersNothing("<b>&#32;</b>")).toBe(true);
    expect(rendersNothing("<pre>x</pre>")).toBe(false);
    expect(rendersNothing("&amp;")).toBe(false);
  });
});

describe("rendering in pieces", () => {
  it("cuts again a piece whose rendering grew past the limit, instead of sending it plain", () => {
    // Every item numbered "1." is renumbered to 1..900 when rendered, which makes the text longer.
    const list = Array.from({ length: 900 }, () => "1. item").join("\n");
    const pieces = renderPieces(list, TELEGRAM_MESSAGE_LIMIT);
    expect(pieces.length).toBeGreaterThan(1);
    for (const { html } of pieces) {
      expect(html).toBeDefined();
      expect(visibleLength(html!)).toBeLessThanOrEqual(TELEGRAM_MESSAGE_LIMIT);
    }
  });

  it("sends a piece that renders to no text (an empty code block) as plain text, not an empty message", () => {
    for (const answer of [
      "```\n```",
      "```js\n   \n```",
      `\`\`\`${"a long info string, not a language ".repeat(3)}\n\`\`\``,
    ]) {
      const [piece, ...more] = renderPieces(answer, TELEGRAM_MESSAGE_LIMIT);
      expect(more).toEqual([]);
      expect(piece!.html).toBeUndefined();
      expect(piece!.piece).toMatch(/^```[^\n]{0,32}\n[ \n]*```$/);
    }
  });

  it("keeps entities Telegram knows and escapes the rest", () => {
    expect(markdownToTelegramHtml("Tom &amp; Jerry, 1 &lt; 2, caf&#233;, a & b, &nbsp;")).toBe(
      "Tom &amp; Jerry, 1 &lt; 2, café, a &amp; b, &amp;nbsp;",
    );
  });
});

describe("splitting", () => {
  it("keeps the first line's indentation", () => {
    expect(splitMessage("\n\n    indented code\n")).toEqual(["    indented code"]);
  });

  it("leaves short texts alone", () => {
    expect(splitMessage("hello")).toEqual(["hello"]);
  });

  it("cuts at a paragraph break, else a line break, else a space, within the limit", () => {
    const text = `${"a".repeat(60)}\n\n${"b".repeat(60)}`;
    expect(splitMessage(text, 100)).toEqual(["a".repeat(60), "b".repeat(60)]);
    const lines = `${"a".repeat(60)}\n${"b".repeat(60)}`;
    expect(splitMessage(lines, 100)).toEqual(["a".repeat(60), "b".repeat(60)]);
    const words = `${"a ".repeat(40)}${"b ".repeat(40)}`.trim();
    for (const piece of splitMessage(words, 50)) expect(piece.length).toBeLessThanOrEqual(50);
    expect(splitMessage("x".repeat(250), 100).map((piece) => piece.length)).toEqual([92, 92, 66]);
  });

  it("closes and reopens a code fence cut in two", () => {
    const code = `\`\`\`python\n${Array.from({ length: 30 }, (_, index) => `print(${index})`).join("\n")}\n\`\`\``;
    const pieces = splitMessage(code, 200);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces) {
      expect(piece.startsWith("```python")).toBe(true);
      expect(piece.endsWith("```")).toBe(true);
      expect(piece.length).toBeLessThanOrEqual(200);
    }
  });

  it("never splits a surrogate pair", () => {
    const emoji = "😀".repeat(100);
    for (const piece of splitMessage(emoji, 51)) expect(piece).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/);
  });

  it("keeps a fence with a huge info string from turning one answer into thousands of messages", () => {
    // 25,004 characters under a fence whose info string is longer than a message: each reopened piece used to
    // repeat it, leaving room for a few characters of code per message (1,392 messages).
    const answer = `\`\`\`${"x".repeat(4100)}\n${"print(1)\n".repeat(2300)}\`\`\``;
    const pieces = renderPieces(answer, TELEGRAM_MESSAGE_LIMIT);
    expect(pieces.length).toBeLessThanOrEqual(MAX_PIECES);
    expect(pieces.every((piece) => visibleLength(piece.html ?? piece.piece) <= TELEGRAM_MESSAGE_LIMIT)).toBe(true);
    expect(pieces[0]?.html).not.toContain("x".repeat(100));
  });

  it("never splits a surrogate pair where the cut note cuts the last piece", () => {
    const pieces = splitMessage("𝔘".repeat(20 * TELEGRAM_MESSAGE_LIMIT));
    expect(pieces.at(-1)).toContain(CUT_NOTE);
    for (const piece of pieces) expect(piece).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it("cuts a text to a length without splitting a surrogate pair", () => {
    expect(cutText("ab😀", 3)).toBe("ab");
    expect(cutText("ab😀", 4)).toBe("ab😀");
    expect(cutText("abc", 5)).toBe("abc");
  });

  it("cuts an answer longer than MAX_PIECES messages with a note", () => {
    const answer = "word ".repeat(20 * TELEGRAM_MESSAGE_LIMIT);
    const pieces = splitMessage(answer);
    expect(pieces).toHaveLength(MAX_PIECES);
    expect(pieces.at(-1)).toContain(CUT_NOTE);
    expect(pieces.every((piece) => piece.length <= TELEGRAM_MESSAGE_LIMIT)).toBe(true);
  });
});
