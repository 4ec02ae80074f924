import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AnswerView } from "../../../src/reply/live-answer.ts";
import { Pacer } from "../../../src/reply/pacer.ts";
import { RichDraftAnswer } from "../../../src/reply/rich-draft-answer.ts";

function draftAnswer() {
  const drafts: string[] = [];
  const notUsed = (): AnswerView => {
    throw new Error("no fallback expected");
  };
  const answer = new RichDraftAnswer({
    telegram: {
      sendRichDraft: async (_target, _draftId, markdown) => {
        drafts.push(markdown);
        return { kind: "ok", value: true };
      },
    },
    target: { chatId: 1 },
    pacer: new Pacer({ minIntervalMs: 300 }),
    delivery: {
      send: async () => "sent",
      refuse: () => undefined,
    },
    draftId: 5,
    plain: notUsed,
    withoutDrafts: notUsed,
  });
  return { answer, drafts };
}

describe("a rich draft", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("keeps no timer before a draft shows, then shows an unchanged draft again before Telegram drops it", async () => {
    const { answer, drafts } = draftAnswer();
    // An answer that comes all at once never shows a draft: nothing to keep alive, no timer.
    expect(vi.getTimerCount()).toBe(0);

    answer.delta("Hello");
    await vi.advanceTimersByTimeAsync(150);
    expect(drafts).toEqual(["Hello"]);
    await vi.advanceTimersByTimeAsync(19_000);
    expect(drafts).toHaveLength(1);
    // Drafts are 30-second previews: one unchanged for 20 seconds is sent again.
    await vi.advanceTimersByTimeAsync(6_000);
    expect(drafts).toEqual(["Hello", "Hello"]);

    await answer.close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(drafts).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("shows no draft once the text is final: the final form goes next, with no round trip in front of it", async () => {
    const { answer, drafts } = draftAnswer();
    answer.delta("The whole answer");
    // Under load the turn ends more than the first draft's 100 ms after its text came; the draft is not sent then.
    answer.textEnded();
    await vi.advanceTimersByTimeAsync(500);
    expect(drafts).toEqual([]);
    expect(await answer.finish({ markdown: "The whole answer", steps: [] }, {})).toBe("sent");
    expect(drafts).toEqual([]);
  });
});
