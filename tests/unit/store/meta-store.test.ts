import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { spendSlot } from "../../../src/budget/spend-slot.ts";
import { nextTaskAtSlot, prunedAtSlot, targetSlot } from "../../../src/durable/chat-slots.ts";
import { draftsRefusedSlot } from "../../../src/reply/reply-slots.ts";
import { ChatStores } from "../../../src/store/chat-stores.ts";
import { inboxCodec } from "../../../src/turn/inbox-entries.ts";
import { session } from "../../worker/helpers.ts";

describe("MetaStore", () => {
  it("keeps typed values, written through to SQLite", async () => {
    await runInDurableObject(session(7004), ({ stores }, state) => {
      stores.meta.set(targetSlot, { chatId: 7004, threadId: 5 });
      stores.meta.set(draftsRefusedSlot, true);
      expect(stores.meta.get(targetSlot)).toEqual({ chatId: 7004, threadId: 5 });
      // Another reader of the same database sees the same values.
      const fresh = new ChatStores(state.storage, inboxCodec);
      expect(fresh.meta.get(targetSlot)).toEqual({ chatId: 7004, threadId: 5 });
      expect(fresh.meta.get(draftsRefusedSlot)).toBe(true);
      // A second write of a key replaces its row.
      stores.meta.set(targetSlot, { chatId: 7004, threadId: 6 });
      expect(new ChatStores(state.storage, inboxCodec).meta.get(targetSlot)).toEqual({ chatId: 7004, threadId: 6 });
      stores.meta.delete(draftsRefusedSlot);
      expect(new ChatStores(state.storage, inboxCodec).meta.get(draftsRefusedSlot)).toBeUndefined();
    });
  });

  it("treats a stored value its key's schema refuses as absent", async () => {
    await runInDurableObject(session(7004), (_instance, state) => {
      state.storage.sql.exec(
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('spend', '{\"day\":\"2026-11-23\"}'), ('nextTaskAt', 'nope'), ('prunedAt', '5')",
      );
      const { meta } = new ChatStores(state.storage, inboxCodec);
      expect(meta.get(spendSlot)).toBeUndefined();
      expect(meta.get(nextTaskAtSlot)).toBeUndefined();
      expect(meta.get(prunedAtSlot)).toBe(5);
    });
  });

  it("forgets what a rolled-back transaction wrote", async () => {
    await runInDurableObject(session(7004), ({ stores }) => {
      stores.meta.set(prunedAtSlot, 1);
      expect(() =>
        stores.atomically(() => {
          stores.meta.set(prunedAtSlot, 2);
          throw new Error("the turn's write failed");
        }),
      ).toThrow("the turn's write failed");
      expect(stores.meta.get(prunedAtSlot)).toBe(1);
    });
  });
});
