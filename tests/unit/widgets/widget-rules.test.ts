import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { widgetFallback, widgetHtml } from "../../../src/widgets/widget-kinds.ts";
import { checkWidget, fitsWidgetData, networkUses, WIDGET_LIMITS } from "../../../src/widgets/widget-rules.ts";

/** Text that hardly compresses: each character drawn at random. */
function noise(length: number): string {
  const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  return Array.from({ length }, () => letters[Math.floor(Math.random() * letters.length)]).join("");
}

describe("a widget's rules (Bot API 10.4)", () => {
  it("takes a document within 32 KB and 4 KB after zlib, and says which limit another one passes", async () => {
    const ok = await checkWidget(`<p>${"a".repeat(30_000)}</p>`);
    expect(ok).toMatchObject({ ok: true });
    const tooLong = await checkWidget("a".repeat(WIDGET_LIMITS.htmlBytes + 1));
    expect(tooLong).toMatchObject({ ok: false, problem: expect.stringContaining("32768") });
    const incompressible = await checkWidget(`<p>${noise(6000)}</p>`);
    expect(incompressible).toMatchObject({ ok: false, problem: expect.stringContaining("after compression") });
    expect(await checkWidget("")).toMatchObject({ ok: false });
  });

  it("measures at least what zlib at level 9 (Telegram's measure) gives, so what passes here passes there", async () => {
    const html = `<p>${noise(2500)}</p>`;
    const check = await checkWidget(html);
    if (!check.ok) throw new Error(check.problem);
    expect(check.compressedBytes).toBeGreaterThanOrEqual(deflateSync(Buffer.from(html), { level: 9 }).length);
  });

  it("refuses network use in addresses and scripts, but not the words in the text", () => {
    expect(networkUses('<img src="https://x.test/a.png">')).toEqual(["https://x.test/a.png"]);
    expect(networkUses("<a href='//cdn.test/x'>x</a>")).toEqual(["//cdn.test/x"]);
    expect(networkUses("<style>@import url(https://f.test/a.css)</style>")).toEqual(["https://f.test/a.css"]);
    expect(networkUses("<div style=\"background:url('http://x.test/b.png')\"></div>")).toContain("http://x.test/b.png");
    expect(networkUses("<script>new WebSocket('wss://x')</script>")).toEqual(["WebSocket"]);
    expect(networkUses("<script>import('./x.js')</script>")).toEqual(["import("]);
    expect(networkUses('<button onclick="fetch(1)">x</button>')).toEqual(["fetch"]);
    expect(
      networkUses('<p>Fetch the Worker a WebSocket</p><a href="#top">up</a><img src="data:image/png;base64,AA">'),
    ).toEqual([]);
  });

  it("keeps state and answers within 1,024 bytes", () => {
    expect(fitsWidgetData("x".repeat(1024))).toBe(true);
    expect(fitsWidgetData("é".repeat(513))).toBe(false);
  });
});

describe("the built-in widgets", () => {
  it("fit the limits at their largest (30 items of 80 characters that hardly compress) and use no network", async () => {
    const items = Array.from({ length: 30 }, () => noise(80));
    for (const spec of [
      { kind: "checklist" as const, title: noise(120), items },
      { kind: "choice" as const, title: noise(120), options: items.slice(0, 8) },
      { kind: "chart" as const, title: noise(120), labels: items, values: items.map((_, index) => index * 7.5) },
    ]) {
      const check = await checkWidget(widgetHtml(spec));
      expect(check, spec.kind).toMatchObject({ ok: true });
    }
  });

  it("escape what they show: an item cannot end the script or add markup", () => {
    const html = widgetHtml({ kind: "checklist", title: "<b>x</b>", items: ["</script><script>alert(1)</script>"] });
    expect(html).not.toContain("</script><script>alert(1)");
    expect(html).toContain("&#60;b&#62;x");
  });

  it("have the same answer as Markdown for where a widget cannot go", () => {
    expect(widgetFallback({ kind: "checklist", title: "Trip", items: ["Tent", "Map"] }, { t: [1] })).toBe(
      "**Trip**\n\n- [ ] Tent\n- [x] Map",
    );
    expect(
      widgetFallback({ kind: "chart", title: "Sales", labels: ["Q1", "Q2"], values: [5, 10], unit: "k" }),
    ).toContain("| Q2 | 10k | ████████████ |");
  });
});
