import { describe, expect, it } from "vitest";
import { burstFor } from "../../../src/durable/inbox-batch.ts";
import type { IncomingMessage } from "../../../src/telegram/incoming-message.ts";
import type { InboxItem } from "../../../src/turn/inbox-entries.ts";

function item(id: number, extra: Partial<IncomingMessage> = {}): InboxItem {
  const message: IncomingMessage = {
    updateId: id,
    messageId: id,
    chat: { id: 7301, type: "private", isForum: false },
    text: `m${id}`,
    date: 1,
    ...extra,
  };
  return { id, attempts: 1, kind: "message", message };
}

async function waited(items: InboxItem[]): Promise<number> {
  const burst = burstFor(items);
  const started = Date.now();
  await burst?.settle(new AbortController().signal);
  return Date.now() - started;
}

describe("burstFor", () => {
  it("counts an album once: three photos of one album are one message, and its turn calls at once", async () => {
    const album = [1, 2, 3].map((id) => item(id, { mediaGroupId: "album-1" }));
    expect(await waited(album)).toBeLessThan(50);
  });

  it("lets a batch of three messages settle before its first call, as a flood in progress", async () => {
    expect(await waited([item(1), item(2), item(3)])).toBeGreaterThanOrEqual(90);
  });

  it("counts only the plain messages after the batch's last command", async () => {
    const batch = [item(1), item(2), item(3, { text: "/new", command: { name: "new", args: "" } }), item(4), item(5)];
    expect(await waited(batch)).toBeLessThan(50);
  });
});
