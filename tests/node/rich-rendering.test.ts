import { describe, expect, it } from "vitest";
import { checkRichMessage } from "../../scripts/bot-api/rich-message.ts";
import { RICH_LIMITS } from "../../src/telegram/rich-limits.ts";
import { toRichMarkdown } from "../../src/telegram/rich-markdown.ts";
import { repairPartial } from "../../src/telegram/rich-partial.ts";
import { mayNeedRich, needsRich, renderRich, renderRichPartial } from "../../src/telegram/rich-render.ts";
import { MAX_RICH_PIECES, splitRich } from "../../src/telegram/rich-split.ts";
import { CUT_NOTE } from "../../src/telegram/split.ts";
import { firstMissingWord, generateAnswer, generateRichAnswer } from "../fakes/answers.ts";

/**
 * The rich renderer and splitter (src/telegram/rich-*.ts) against Telegram's documented limits, as the fakes check
 * them (scripts/bot-api/rich-message.ts): thousands of generated answers, random and adversarial Markdown and answers
 * full of tables, lists, math, details and code, of every length. No piece may be refused, no word may be lost, and
 * a half-written answer rendered for a draft (with its thinking block) must be a draft Telegram takes at every point.
 */
const ANSWERS = 1500;
const RICH_ANSWERS = 1500;

/**
 * The words of rich Markdown as written (escapes undone): the conversion and the cuts may add to the model's text
 * (a backslash, a table's header again) but never drop a word of it. Whether Telegram's GitHub-flavoured parser shows
 * them is Telegram's; the fakes' measure of a rich text is too coarse to say (HTML tags, for one, are not text there).
 */
function writtenText(markdown: string): string {
  return markdown.replace(/\\([!-/:-@[-`{-~])/g, "$1");
}

function shown(markdown: string): string {
  return JSON.stringify(markdown.length > 300 ? `${markdown.slice(0, 200)} … ${markdown.slice(-100)}` : markdown);
}

/** What goes wrong with one answer as rich messages, if anything. */
function problemsOf(seed: string, markdown: string): string[] {
  const rendering = renderRich(markdown);
  if (!rendering) return [];
  const problems: string[] = [];
  if (rendering.pieces.length > MAX_RICH_PIECES) problems.push(`${seed}: ${rendering.pieces.length} pieces`);
  for (const [index, piece] of rendering.pieces.entries()) {
    const checked = checkRichMessage({ markdown: piece }, { draft: false });
    if (!checked.ok) {
      problems.push(`${seed}, piece ${index + 1}: ${checked.refusal.description} (${checked.detail}); ${shown(piece)}`);
    }
  }
  const cut = rendering.pieces.at(-1)?.endsWith(CUT_NOTE) ?? false;
  const missing = firstMissingWord(markdown, rendering.pieces.map(writtenText), { cut });
  if (missing !== undefined) problems.push(`${seed}: "${missing}" is lost; ${shown(markdown)}`);
  return problems;
}

/** Half-written versions of an answer, as drafts with a thinking block: what the fake refuses of them. */
function draftProblemsOf(seed: string, markdown: string): string[] {
  const problems: string[] = [];
  for (let step = 1; step <= 8; step++) {
    const partial = markdown.slice(0, Math.ceil((markdown.length * step) / 8));
    const piece = renderRichPartial(partial).at(-1) ?? "";
    const draft = `<tg-thinking>\n\n⚙️ web\\_fetch: example.com\n\n</tg-thinking>\n\n${piece}`;
    const checked = checkRichMessage({ markdown: draft }, { draft: true });
    if (!checked.ok) {
      problems.push(
        `${seed} at ${partial.length}: ${checked.refusal.description} (${checked.detail}); ${shown(piece)}`,
      );
    }
  }
  return problems;
}

describe("rich messages, checked against Telegram's limits", () => {
  it(`renders ${ANSWERS} generated answers and ${RICH_ANSWERS} structured ones without a refusal or a lost word`, () => {
    const problems: string[] = [];
    for (let seed = 1; seed <= ANSWERS && problems.length < 10; seed++) {
      problems.push(...problemsOf(`answer ${seed}`, generateAnswer(seed)));
    }
    for (let seed = 1; seed <= RICH_ANSWERS && problems.length < 10; seed++) {
      problems.push(...problemsOf(`rich answer ${seed}`, generateRichAnswer(seed)));
    }
    expect(problems).toEqual([]);
  }, 300_000);

  it("renders every half-written answer as a draft Telegram takes, thinking block included", () => {
    const problems: string[] = [];
    for (let seed = 1; seed <= 300 && problems.length < 10; seed++) {
      problems.push(...draftProblemsOf(`answer ${seed}`, generateAnswer(seed)));
      problems.push(...draftProblemsOf(`rich answer ${seed}`, generateRichAnswer(seed)));
    }
    expect(problems).toEqual([]);
  }, 300_000);
});

describe("the rich renderer", () => {
  it("keeps the model's Markdown where Telegram's is the same", () => {
    const answer = [
      "# Plan",
      "Some **bold**, _italic_, ~~gone~~, `code` and a [link](https://example.com).",
      "| Fruit | Qty |\n|:--|--:|\n| Apple | 3 |",
      "- [ ] buy\n- [x] cook",
      "> quoted",
      "```ts\nconst a = 1 < 2 && $x;\n```",
      "$E = mc^2$ and $$\\int_0^1 x\\,dx$$",
      "<details><summary>More</summary>\n\nHidden.\n\n</details>",
    ].join("\n\n");
    const rich = toRichMarkdown(answer);
    expect(rich.markdown).toBe(answer);
    expect([...rich.structure].sort()).toEqual(["details", "heading", "math", "table", "task list"]);
  });

  it("changes what Telegram would read otherwise, and nothing inside code", () => {
    const cases: [string, string][] = [
      ["It costs $5 and $10.", "It costs \\$5 and \\$10."],
      ["Inline \\(x^2\\) and display \\[y = 1\\].", "Inline $x^2$ and display $$y = 1$$."],
      ["a || b, a == b", "a \\|\\| b, a \\=\\= b"],
      ["Use <div> or <script>x</script>.", "Use \\<div> or \\<script>x\\</script>."],
      ["<tg-thinking>no</tg-thinking>", "\\<tg-thinking>no\\</tg-thinking>"],
      [
        "![chart](https://example.com/c.png) and ![](https://example.com/d.png)",
        "[chart](https://example.com/c.png) and [https://example.com/d.png](https://example.com/d.png)",
      ],
      ["[run](javascript:alert(1)) and [ok](https://example.com)", "run and [ok](https://example.com)"],
      ["`a || $b <i>` and ``x == y``", "`a || $b <i>` and ``x == y``"],
      ["<https://example.com> and <a@b.co>", "<https://example.com> and <a@b.co>"],
      ["<details><summary>open</summary> never closed", "\\<details>\\<summary>open\\</summary> never closed"],
      ["| a || b |\n|---|---|---|\n| 1 || 2 |", "| a || b |\n|---|---|---|\n| 1 || 2 |"],
      ["Title\n=====", "Title\n====="],
      ["bad &#0; and &#xD800;, fine &#128512;", "bad \\&#0; and \\&#xD800;, fine &#128512;"],
      ["- item\n\n  ```\n  $x || y\n  ```", "- item\n\n  ```\n  $x || y\n  ```"],
    ];
    for (const [input, output] of cases) expect(toRichMarkdown(input).markdown).toBe(output);
  });

  it("turns a table wider than Telegram's 20 columns into a code block", () => {
    const row = `| ${Array.from({ length: 22 }, (_, index) => `c${index}`).join(" | ")} |`;
    const table = `${row}\n|${"---|".repeat(22)}\n${row}`;
    expect(toRichMarkdown(table).markdown).toBe(`\`\`\`\n${table}\n\`\`\`\n`);
  });

  it("sends a 10,000-character answer as one message, and says it needs a rich message", () => {
    const answer = Array.from({ length: 100 }, (_, index) => `Paragraph ${index}: ${"word ".repeat(19)}`).join("\n\n");
    expect(answer.length).toBeGreaterThan(10_000);
    const rendering = renderRich(answer)!;
    expect(rendering.pieces).toHaveLength(1);
    expect(rendering.structure.size).toBe(0);
    expect(needsRich(rendering)).toBe(true);
    expect(needsRich(renderRich("Just a short answer.")!)).toBe(false);
  });

  it("skips rendering only answers that could never need a rich message", () => {
    // Generated answers, each of their paragraphs on its own, and near misses of every structure.
    const answers = [
      "Just a short answer.",
      "Title\n===",
      "Title\n  ---",
      "A\n- b\n\nc",
      "1. one\n2. two",
      "*a* _b_ `c`",
    ];
    for (let seed = 0; seed < 300; seed++) {
      for (const answer of [generateAnswer(seed), generateRichAnswer(seed)]) {
        answers.push(answer, ...answer.split("\n\n"));
      }
    }
    let skipped = 0;
    for (const answer of answers) {
      if (mayNeedRich(answer)) continue;
      skipped += 1;
      const rendering = renderRich(answer);
      if (rendering && needsRich(rendering)) throw new Error(`skipped, but needs a rich message: ${shown(answer)}`);
    }
    expect(skipped).toBeGreaterThan(500);
    expect(mayNeedRich("Title\n===")).toBe(true);
    expect(mayNeedRich("Just a short answer.")).toBe(false);
  });

  it("never cuts a table or a code block that fits one message; one too big goes on under its header", () => {
    const table = `| n | square |\n|--:|--:|\n${Array.from({ length: 40 }, (_, n) => `| ${n} | ${n * n} |`).join("\n")}`;
    const code = `\`\`\`python\n${"print('hello')\n".repeat(100)}\`\`\``;
    const filler = (n: number) =>
      Array.from({ length: n }, (_, index) => `Line ${index} ${"x".repeat(80)}`).join("\n\n");
    const pieces = splitRich(`${filler(300)}\n\n${table}\n\n${filler(60)}\n\n${code}\n\n${filler(20)}`)!;
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.filter((piece) => piece.includes("| n | square |"))).toHaveLength(1);
    expect(pieces.find((piece) => piece.includes("| n | square |"))).toContain(table);
    expect(pieces.find((piece) => piece.includes("```python"))).toContain(code);

    const big = `| n | name |\n|--:|:--|\n${Array.from({ length: 900 }, (_, n) => `| ${n} | row ${n} |`).join("\n")}`;
    const parts = splitRich(big)!;
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(part.startsWith("| n | name |\n|--:|:--|\n")).toBe(true);
      const checked = checkRichMessage({ markdown: part }, { draft: false });
      expect(checked.ok && checked.rich.blocks).toBeLessThanOrEqual(RICH_LIMITS.blocks);
    }
    expect(parts.join("\n").match(/\| row \d+ \|/g)).toHaveLength(900);
  });

  it("leaves an answer nested past 16 levels to the HTML path", () => {
    const deep = Array.from({ length: 12 }, (_, level) => `${"  ".repeat(level)}- level ${level}`).join("\n");
    expect(renderRich(deep)).toBeUndefined();
    // A draft still shows it, as code.
    expect(renderRichPartial(deep)[0]).toMatch(/^```/);
  });
});

describe("a half-written answer", () => {
  it("closes an open code fence", () => {
    expect(repairPartial("Here:\n\n```ts\nconst a = 1")).toBe("Here:\n\n```ts\nconst a = 1\n```");
  });

  it("shows a table once its header and alignment rows arrived, a row at a time", () => {
    expect(repairPartial("Results:\n\n| a | b |")).toBe("Results:\n");
    expect(repairPartial("Results:\n\n| a | b |\n|---|--")).toBe("Results:\n");
    expect(repairPartial("Results:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 |")).toBe(
      "Results:\n\n| a | b |\n|---|---|\n| 1 | 2 |",
    );
    expect(toRichMarkdown(repairPartial("| a | b |\n|---|---|\n| 1 | 2 |\n| 3")).structure.has("table")).toBe(true);
  });

  it("holds back an unclosed formula or tag and closes bold, code spans and details", () => {
    expect(repairPartial("Sum: $$x^2 + ")).toBe("Sum: ");
    expect(repairPartial("see <deta")).toBe("see ");
    expect(repairPartial("**bold so far")).toBe("**bold so far**");
    expect(repairPartial("run `npm i")).toBe("run `npm i`");
    expect(repairPartial("<details><summary>s</summary>\n\nbody")).toBe(
      "<details><summary>s</summary>\n\nbody\n\n</details>",
    );
  });
});
