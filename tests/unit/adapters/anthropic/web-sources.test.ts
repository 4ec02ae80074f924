import type { TextCitation } from "@anthropic-ai/sdk/resources/messages/messages";
import { describe, expect, it } from "vitest";
import { WebSources } from "../../../../src/adapters/anthropic/web-sources.ts";

const cited = (url: string, title: string | null): TextCitation =>
  ({ type: "web_search_result_location", url, title, cited_text: "…", encrypted_index: "x" }) as TextCitation;

describe("WebSources", () => {
  it("lists each cited web page once, as Markdown links, at most five", () => {
    const sources = new WebSources();
    sources.add([cited("https://a.example/1", "A [one]"), cited("https://a.example/1", "A again")]);
    sources.add([cited("https://b.example/(2)", null), cited("javascript:alert(1)", "no")]);
    for (let page = 3; page <= 8; page++) sources.add([cited(`https://c.example/${page}`, `C${page}`)]);
    expect(sources.line()).toBe(
      "\n\nSources: [A one](https://a.example/1), [https://b.example/(2)](https://b.example/(2%29), " +
        "[C3](https://c.example/3), [C4](https://c.example/4), [C5](https://c.example/5)",
    );
  });

  it("says nothing when no page was cited", () => {
    expect(new WebSources().line()).toBe("");
  });
});
