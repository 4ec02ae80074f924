import { describe, expect, it } from "vitest";
import {
  estimateTokens,
  planCompaction,
  summaryRequestText,
  tokensOfBytes,
  withoutSummaryTags,
} from "../../../src/compaction/summary.ts";
import type { HistoryMessage } from "../../../src/protocol/messages.ts";

const rowsOf = (messages: HistoryMessage[]) => messages.map((message, index) => ({ id: index + 1, message }));
const turn = (index: number, size = 10): HistoryMessage[] => [
  { role: "user", content: `u${index} ${"x".repeat(size)}` },
  { role: "assistant", content: "", toolCalls: [{ id: `c${index}`, name: "recall", arguments: "{}" }] },
  { role: "tool", toolCallId: `c${index}`, toolName: "recall", content: "nothing" },
  { role: "assistant", content: `a${index}` },
];

describe("planCompaction", () => {
  it("does nothing while the history fits the window", () => {
    const rows = rowsOf([...turn(1), ...turn(2)]);
    expect(planCompaction(rows, { windowTokens: 10_000, windowMessages: 8 })).toBeUndefined();
  });

  it("folds the older half when the window holds too many messages, ending before a user message", () => {
    const rows = rowsOf(Array.from({ length: 10 }, (_, index) => turn(index)).flat());
    const plan = planCompaction(rows, { windowTokens: 100_000, windowMessages: 20 });
    expect(plan).toBeDefined();
    const folded = plan!.rows;
    expect(folded[0]!.id).toBe(1);
    // At most the newest half (10 messages) stays, opened at a user message (2 whole turns); the rest is folded.
    expect(folded).toHaveLength(32);
    expect(rows[folded.length]!.message.role).toBe("user");
  });

  it("folds by estimated tokens too, and a pass reads at most about two windows", () => {
    const rows = rowsOf(Array.from({ length: 40 }, (_, index) => turn(index, 400)).flat());
    const perTurn = turn(0, 400).reduce((sum, message) => sum + estimateTokens(message), 0);
    const windowTokens = perTurn * 4;
    const plan = planCompaction(rows, { windowTokens, windowMessages: 1000 });
    const foldedTokens = plan!.rows.reduce((sum, row) => sum + estimateTokens(row.message), 0);
    expect(foldedTokens).toBeLessThanOrEqual(windowTokens * 2);
    expect(plan!.rows.length % 4).toBe(0);
    expect(plan!.rows.length).toBeGreaterThan(0);
  });

  it("never leaves the window without its newest user message", () => {
    const rows = rowsOf([
      { role: "user", content: "x".repeat(50_000) },
      { role: "assistant", content: "ok" },
    ]);
    expect(planCompaction(rows, { windowTokens: 1000, windowMessages: 40 })).toBeUndefined();
  });
});

describe("summaryRequestText", () => {
  it("gives the summary so far and the new part as a transcript, tool calls included", () => {
    const text = summaryRequestText("Earlier: the user is Ada.", turn(1));
    expect(text).toContain("Summary so far:\nEarlier: the user is Ada.");
    expect(text).toContain("User: u1 xxxxxxxxxx");
    expect(text).toContain("Assistant: [called recall({})]");
    expect(text).toContain("Tool recall: nothing");
    expect(summaryRequestText(undefined, [])).toContain("(none yet)");
  });
});

describe("tokensOfBytes", () => {
  it("is never below the per-message estimate, so the quick check never skips a history that needs folding", () => {
    const messages = [...turn(1, 7), ...turn(2, 1), { role: "user" as const, content: "é".repeat(11) }];
    const bytes = messages.reduce(
      (sum, message) => sum + new TextEncoder().encode(JSON.stringify(message)).byteLength,
      0,
    );
    const perMessage = messages.reduce((sum, message) => sum + estimateTokens(message), 0);
    expect(tokensOfBytes(bytes, messages.length)).toBeGreaterThanOrEqual(perMessage);
    expect(tokensOfBytes(bytes, messages.length)).toBeLessThanOrEqual(perMessage + messages.length);
  });
});

describe("withoutSummaryTags", () => {
  it("leaves no summary tag however the pieces nest (fuzzed)", () => {
    const pieces = ["<", "</", "/", "summary", "SUMMARY", "sum", "mary", ">", " ", "</summary>", "<summary x=1>", "a"];
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 5000; round++) {
      const text = Array.from(
        { length: 1 + Math.floor(random() * 12) },
        () => pieces[Math.floor(random() * pieces.length)],
      ).join("");
      expect(withoutSummaryTags(text)).not.toMatch(/<\s*\/?\s*summary\b[^>]*>/i);
    }
    expect(withoutSummaryTags("</sum</summary>mary>")).toBe("");
    expect(withoutSummaryTags("a < b and c > d")).toBe("a < b and c > d");
  });
});
