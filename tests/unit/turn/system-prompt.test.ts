import { describe, expect, it } from "vitest";
import { buildSystemPrompt } from "../../../src/turn/system-prompt.ts";

const promptAt = (iso: string, timezone: string) =>
  buildSystemPrompt({
    botName: "Bot",
    chat: { type: "private", isForumTopic: false },
    toolNames: [],
    now: new Date(iso),
    timezone,
  });

const dateLine = (prompt: string) => prompt.split("\n\n").at(-1);

describe("buildSystemPrompt's date", () => {
  it("names the minute in the chat's time zone, and the next minute as soon as it starts", () => {
    expect(dateLine(promptAt("2026-11-24T22:41:05Z", "Europe/Berlin"))).toBe(
      "The current date and time is Tuesday, 24 November 2026 at 23:41 (Europe/Berlin).",
    );
    // The same minute again (kept), then the next one (formatted anew), then an earlier one.
    expect(dateLine(promptAt("2026-11-24T22:41:59.999Z", "Europe/Berlin"))).toContain("23:41");
    expect(dateLine(promptAt("2026-11-24T22:42:00Z", "Europe/Berlin"))).toContain("23:42");
    expect(dateLine(promptAt("2026-11-24T22:41:30Z", "Europe/Berlin"))).toContain("23:41");
  });

  it("keeps each time zone's minute apart, half-hour offsets included", () => {
    expect(dateLine(promptAt("2026-11-24T18:29:59Z", "Asia/Kolkata"))).toContain("Tuesday, 24 November 2026 at 23:59");
    expect(dateLine(promptAt("2026-11-24T18:30:00Z", "Asia/Kolkata"))).toContain(
      "Wednesday, 25 November 2026 at 00:00",
    );
    expect(dateLine(promptAt("2026-11-24T18:30:00Z", "UTC"))).toContain("Tuesday, 24 November 2026 at 18:30");
  });
});

describe("buildSystemPrompt's tools", () => {
  const withTools = (toolNames: string[]) =>
    buildSystemPrompt({
      botName: "Bot",
      chat: { type: "private", isForumTopic: false },
      toolNames,
      now: new Date("2026-11-24T12:00:00Z"),
      timezone: "UTC",
    });

  it("says when to ask with buttons and when to answer with a widget, only when those tools are offered", () => {
    const offered = withTools(["ask_user", "show_widget"]);
    expect(offered).toContain("call ask_user with short choices");
    expect(offered).toContain("call show_widget (a checklist, a choice or a chart)");
    const neither = withTools(["remember"]);
    expect(neither).not.toContain("ask_user");
    expect(neither).not.toContain("show_widget");
  });
});
