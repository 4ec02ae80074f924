import { describe, expect, it } from "vitest";
import { speakableText } from "../../../src/reply/speakable.ts";

describe("speakableText", () => {
  it("drops Markdown's marks and keeps the words", () => {
    const { text, cut } = speakableText("**Bold**, _italic_, ~~gone~~ and `code` with [a link](https://x.test).", 500);
    expect(text).toBe("Bold, italic, gone and code with a link.");
    expect(cut).toBe(false);
  });

  it("reads headings and list items as sentences and names what cannot be spoken", () => {
    const markdown =
      "# Plan\n\n1. Buy milk\n2. Call **Ada**\n\n```ts\nconst x = 1;\n```\n\n```\nplain\n```\n\n| k | v |\n|---|---|\n| a | 1 |\n\n![a red bicycle](https://x.test/b.png)";
    expect(speakableText(markdown, 1000).text).toBe(
      "Plan.\n\nBuy milk.\nCall Ada.\n\nThe written answer shows TypeScript code here.\n\n" +
        "The written answer shows code here.\n\nThe written answer has a table here, with 1 row.\n\nan image of a red bicycle",
    );
  });

  it("says 'a link' for a bare URL and removes raw HTML tags", () => {
    expect(speakableText("See https://example.com/a/b for <b>details</b>.", 500).text).toBe("See a link for details.");
  });

  it("cuts a long text at the last sentence that fits, and says how long the whole was", () => {
    const text = "One sentence here. Another one follows. And a third that is longer than the rest of them.";
    const spoken = speakableText(text, 45);
    expect(spoken).toEqual({ text: "One sentence here. Another one follows.", cut: true, fullLength: text.length });
  });

  it("cuts at a word, with an ellipsis, when no sentence ends in the first half", () => {
    const spoken = speakableText("word ".repeat(40).trim(), 30);
    expect(spoken.text).toBe("word word word word word word…");
    expect(spoken.cut).toBe(true);
  });
});
