import { describe, expect, it } from "vitest";
import { fitHistory } from "../../../src/adapters/fit-history.ts";
import type { HistoryMessage } from "../../../src/protocol/messages.ts";

const user = (content: string): HistoryMessage => ({ role: "user", content });
const assistant = (content: string): HistoryMessage => ({ role: "assistant", content });
const toolCall = (id: string): HistoryMessage => ({
  role: "assistant",
  content: "",
  toolCalls: [{ id, name: "web_fetch", arguments: '{"url":"https://example.com"}' }],
});
const toolResult = (id: string, content: string): HistoryMessage => ({
  role: "tool",
  toolCallId: id,
  toolName: "web_fetch",
  content,
});

/** The size fitHistory measures: the history as JSON, plus the fixed part of the payload. */
const sizeOf = (history: readonly HistoryMessage[], fixedBytes = 0) => fixedBytes + JSON.stringify(history).length;

describe("fitHistory", () => {
  it("drops nothing when the history fits", () => {
    const history = [user("hi"), toolCall("c1"), toolResult("c1", "page"), assistant("hello"), user("again")];
    expect(fitHistory(history, { fixedBytes: 100, maxBytes: sizeOf(history, 100) })).toEqual(history);
    expect(fitHistory([], { fixedBytes: 0, maxBytes: 0 })).toEqual([]);
  });

  it("does not change the history it is given", () => {
    const history = [user("a".repeat(100)), assistant("b"), user("c")];
    const copy = structuredClone(history);
    fitHistory(history, { fixedBytes: 0, maxBytes: 10 });
    expect(history).toEqual(copy);
  });

  it("drops the oldest turns first, and no more than it must", () => {
    const history = [user("one"), assistant("1"), user("two"), assistant("2"), user("three"), assistant("3")];
    const lastTwoTurns = history.slice(2);
    expect(fitHistory(history, { fixedBytes: 0, maxBytes: sizeOf(lastTwoTurns) })).toEqual(lastTwoTurns);
    expect(fitHistory(history, { fixedBytes: 0, maxBytes: sizeOf(lastTwoTurns) - 1 })).toEqual(history.slice(4));
  });

  it("counts the fixed part of the payload", () => {
    const history = [user("one"), assistant("1"), user("two")];
    expect(fitHistory(history, { fixedBytes: 0, maxBytes: sizeOf(history) })).toEqual(history);
    expect(fitHistory(history, { fixedBytes: 1, maxBytes: sizeOf(history) })).toEqual([user("two")]);
  });

  it("opens the kept window at a user message, never at a tool call or a tool result", () => {
    const history = [
      user("fetch it"),
      toolCall("c1"),
      toolResult("c1", "x".repeat(1000)),
      toolCall("c2"),
      toolResult("c2", "y".repeat(1000)),
      assistant("done"),
      user("thanks"),
      assistant("you're welcome"),
    ];
    // Dropping only the first message would fit, but the window would open at a tool call.
    const kept = fitHistory(history, { fixedBytes: 0, maxBytes: sizeOf(history.slice(1)) });
    expect(kept).toEqual(history.slice(6));
    expect(kept[0]!.role).toBe("user");
  });

  it("never drops the last message, even when it alone does not fit", () => {
    const last = user("z".repeat(500));
    expect(fitHistory([user("a"), assistant("b"), last], { fixedBytes: 0, maxBytes: 10 })).toEqual([last]);
    expect(fitHistory([last], { fixedBytes: 1000, maxBytes: 10 })).toEqual([last]);
    // When no user message is left to open at, the last message is still kept.
    const tail = toolResult("c1", "result");
    expect(fitHistory([user("a".repeat(100)), toolCall("c1"), tail], { fixedBytes: 0, maxBytes: 10 })).toEqual([tail]);
  });

  it("keeps a suffix that fits and opens at a user message, for many histories", () => {
    let seed = 12345;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 300; round++) {
      const history: HistoryMessage[] = [];
      const length = 1 + Math.floor(random() * 12);
      for (let index = 0; index < length; index++) {
        const text = "w".repeat(Math.floor(random() * 200));
        const pick = random();
        if (pick < 0.4) history.push(user(text));
        else if (pick < 0.6) history.push(assistant(text));
        else if (pick < 0.8) history.push(toolCall(`c${index}`));
        else history.push(toolResult(`c${index}`, text));
      }
      const fixedBytes = Math.floor(random() * 100);
      const maxBytes = Math.floor(random() * sizeOf(history, fixedBytes) * 1.2);
      const kept = fitHistory(history, { fixedBytes, maxBytes });
      const start = history.length - kept.length;
      const context = `round ${round}`;
      expect(kept, context).toEqual(history.slice(start));
      expect(kept.length, context).toBeGreaterThanOrEqual(1);
      if (start === 0) continue;
      // Something was dropped: either it fits now and opens at a user message, or only the last message is left.
      if (kept.length > 1) {
        expect(sizeOf(kept, fixedBytes), context).toBeLessThanOrEqual(maxBytes);
        expect(kept[0]!.role, context).toBe("user");
      }
      // And no later-opening window was chosen when an earlier one at a user message would have fit.
      for (let earlier = 0; earlier < start; earlier++) {
        if (earlier > 0 && history[earlier]!.role !== "user") continue;
        expect(sizeOf(history.slice(earlier), fixedBytes), `${context}, window at ${earlier}`).toBeGreaterThan(
          maxBytes,
        );
      }
    }
  });

  // The runner's limit is in bytes: text outside ASCII takes 2-4 bytes per character in UTF-8.
  it("keeps the UTF-8 size within maxBytes for text outside ASCII", () => {
    const history = [user("привет ".repeat(50)), assistant("ответ ".repeat(50)), user("ещё вопрос")];
    const maxBytes = sizeOf(history);
    const kept = fitHistory(history, { fixedBytes: 0, maxBytes });
    expect(new TextEncoder().encode(JSON.stringify(kept)).length).toBeLessThanOrEqual(maxBytes);
  });
});
