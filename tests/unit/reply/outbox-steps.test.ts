import { describe, expect, it } from "vitest";
import {
  afterFirst,
  htmlInstead,
  htmlParcel,
  insteadOfEdit,
  plainParcel,
  richParcel,
} from "../../../src/reply/outbox-steps.ts";
import type { OutboxParcel } from "../../../src/store/outbox-store.ts";

const target = { chatId: 42 };

describe("parcels", () => {
  it("an answer's HTML pieces, the first replying where asked", () => {
    const parcel = htmlParcel(target, `**Hello**\n\n${"word ".repeat(1200)}`, 7);
    expect(parcel.steps.length).toBe(2);
    expect(parcel.steps[0]).toMatchObject({
      kind: "send",
      replyTo: 7,
      piece: { html: expect.stringContaining("<b>Hello</b>") },
    });
    expect(parcel.steps[1]).not.toHaveProperty("replyTo");
    expect(plainParcel(target, "**not Markdown**").steps).toEqual([
      { kind: "send", piece: { piece: "**not Markdown**" } },
    ]);
  });

  it("goes step by step, and remembers that a rich answer's new message went", () => {
    const rich = richParcel(target, ["| a |\n|---|\n| 1 |", "more"], "whole answer", 3);
    const rest = afterFirst(rich);
    expect(rest?.steps).toEqual([{ kind: "send-rich", markdown: "more" }]);
    expect(rest?.rich).toMatchObject({ sentAny: true, whole: "whole answer" });
    expect(afterFirst(rest!)).toBeUndefined();
  });
});

describe("htmlInstead (Telegram refused the rich form)", () => {
  it("sends the whole answer as HTML, replying, while none of its new messages went; streamed ones are deleted", () => {
    const parcel: OutboxParcel = {
      target,
      steps: [
        { kind: "edit-rich", messageId: 11, markdown: "first" },
        { kind: "send-rich", markdown: "second" },
      ],
      rich: { whole: "The **whole** answer", replyTo: 9, streamed: [10, 11], sentAny: false },
    };
    expect(htmlInstead(parcel)).toEqual({
      target,
      steps: [
        { kind: "delete", messageId: 10 },
        { kind: "delete", messageId: 11 },
        { kind: "send", replyTo: 9, piece: { piece: "The **whole** answer", html: "The <b>whole</b> answer" } },
      ],
    });
  });

  it("sends only the rest as HTML once a rich message went, never what already arrived", () => {
    const parcel: OutboxParcel = {
      target,
      steps: [
        { kind: "send-rich", markdown: "third **part**" },
        { kind: "send-rich", markdown: "fourth" },
        { kind: "delete", messageId: 12 },
      ],
      rich: { whole: "everything", streamed: [], sentAny: true },
    };
    const html = htmlInstead(parcel);
    expect(html?.rich).toBeUndefined();
    expect(html?.steps).toEqual([
      { kind: "send", piece: { piece: "third **part**\n\nfourth", html: "third <b>part</b>\n\nfourth" } },
      { kind: "delete", messageId: 12 },
    ]);
  });
});

describe("insteadOfEdit", () => {
  it("sends an edit's content as a new message, and drops a deletion", () => {
    expect(insteadOfEdit({ kind: "edit", messageId: 1, piece: { piece: "x" } })).toEqual({
      kind: "send",
      piece: { piece: "x" },
    });
    expect(insteadOfEdit({ kind: "edit-rich", messageId: 1, markdown: "y" })).toEqual({
      kind: "send-rich",
      markdown: "y",
    });
    expect(insteadOfEdit({ kind: "delete", messageId: 1 })).toBeUndefined();
  });
});
