import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ChatStores } from "../../../src/store/chat-stores.ts";
import { session } from "../../worker/helpers.ts";

describe("MetaStore", () => {
  it("keeps typed values, written through to SQLite", async () => {
    await runInDurableObject(session(7004), ({ stores }, state) => {
      stores.meta.set("target", { chatId: 7004, threadId: 5 });
      stores.meta.set("draftsRefused", true);
      expect(stores.meta.get("target")).toEqual({ chatId: 7004, threadId: 5 });
      // Another reader of the same database sees the same values.
      const fresh = new ChatStores(state.storage);
      expect(fresh.meta.get("target")).toEqual({ chatId: 7004, threadId: 5 });
      expect(fresh.meta.get("draftsRefused")).toBe(true);
      // A second write of a key replaces its row.
      stores.meta.set("target", { chatId: 7004, threadId: 6 });
      expect(new ChatStores(state.storage).meta.get("target")).toEqual({ chatId: 7004, threadId: 6 });
      stores.meta.delete("draftsRefused");
      expect(new ChatStores(state.storage).meta.get("draftsRefused")).toBeUndefined();
    });
  });

  it("treats a stored value its key's schema refuses as absent", async () => {
    await runInDurableObject(session(7004), (_instance, state) => {
      state.storage.sql.exec(
        "INSERT INTO meta (key, value) VALUES ('spend', '{\"day\":\"2026-11-23\"}'), ('nextTaskAt', 'nope'), ('prunedAt', '5')",
      );
      const { meta } = new ChatStores(state.storage);
      expect(meta.get("spend")).toBeUndefined();
      expect(meta.get("nextTaskAt")).toBeUndefined();
      expect(meta.get("prunedAt")).toBe(5);
    });
  });

  it("forgets what a rolled-back transaction wrote", async () => {
    await runInDurableObject(session(7004), ({ stores }) => {
      stores.meta.set("prunedAt", 1);
      expect(() =>
        stores.atomically(() => {
          stores.meta.set("prunedAt", 2);
          throw new Error("the turn's write failed");
        }),
      ).toThrow("the turn's write failed");
      expect(stores.meta.get("prunedAt")).toBe(1);
    });
  });
});
