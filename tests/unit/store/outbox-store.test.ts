import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { OutboxParcel } from "../../../src/store/outbox-store.ts";
import { session } from "../../worker/helpers.ts";
import { laterLife } from "./later-life.ts";
import { statementsSeen } from "./statements-seen.ts";

const CHAT = 7003;
const parcel = (text: string): OutboxParcel => ({
  target: { chatId: CHAT },
  steps: [
    { kind: "send", piece: { piece: text, html: `<b>${text}</b>` }, replyTo: 5 },
    { kind: "send", piece: { piece: `${text}, continued` } },
  ],
});

describe("OutboxStore", () => {
  it("keeps messages in order: the front one is tried, advanced step by step, postponed, removed", async () => {
    await runInDurableObject(session(CHAT), ({ stores }) => {
      const { outbox } = stores;
      expect(outbox.head()).toBeUndefined();
      expect(outbox.summary()).toEqual({ waiting: 0 });
      expect(outbox.nextTryAt()).toBeUndefined();

      const first = outbox.add("answer", parcel("one"), 1_000, {
        attempts: 1,
        nextTryAt: 6_000,
        error: "502 Bad Gateway",
        uncertain: 0,
      });
      outbox.add("notice", parcel("two"), 2_000);
      expect(outbox.summary()).toEqual({ waiting: 2, oldestAt: 1_000, nextTryAt: 6_000 });
      expect(outbox.head()).toMatchObject({ id: first, kind: "answer", attempts: 1, nextTryAt: 6_000, uncertain: 0 });

      // A send goes out (counted as of unknown fate until it is known), then the first step is done.
      outbox.sending(first, 1);
      expect(outbox.head()).toMatchObject({ uncertain: 1 });
      const rest: OutboxParcel = {
        target: { chatId: CHAT },
        steps: [{ kind: "send", piece: { piece: "one, continued" } }],
      };
      outbox.advance(first, rest);
      expect(outbox.head()).toMatchObject({ id: first, parcel: rest, uncertain: 0 });

      // Telegram's retry_after holds even a try brought forward.
      outbox.postpone(first, { nextTryAt: 40_000, holdUntil: 39_000, error: "429 Too Many Requests", uncertain: 0 });
      expect(outbox.head()).toMatchObject({ attempts: 2, nextTryAt: 40_000, holdUntil: 39_000 });
      outbox.tryNow(10_000);
      expect(outbox.head()).toMatchObject({ nextTryAt: 10_000, holdUntil: 39_000 });
      expect(outbox.nextTryAt()).toBe(39_000);

      outbox.remove(first);
      expect(outbox.head()).toMatchObject({ kind: "notice", parcel: parcel("two") });
      expect(outbox.clear()).toBe(1);
      expect(outbox.summary()).toEqual({ waiting: 0 });
    });
  });

  it("reads each row back through its schema: one it cannot read comes back as unreadable, to be dropped", async () => {
    await runInDurableObject(session(CHAT), async (_instance, state) => {
      state.storage.sql.exec(
        "INSERT INTO outbox (kind, payload, created_at, next_try_at) VALUES ('answer', '{\"steps\":[]}', 1, 1), ('answer', 'not json', 2, 2)",
      );
      // Written behind the stores' back: a later life of the object reads them.
      const stores = await laterLife(state.storage);
      const first = stores.outbox.head();
      expect(first).toMatchObject({ kind: "unreadable", problem: "its payload does not match the current schema" });
      stores.outbox.remove(first!.id);
      expect(stores.outbox.head()).toMatchObject({ kind: "unreadable", problem: "its payload is not JSON" });
    });
  });

  it("answers whether anything waits without reading the table again, and sees every write that changes the front", async () => {
    await runInDurableObject(session(CHAT), async (_instance, state) => {
      const { outbox } = await laterLife(state.storage);
      const reads = statementsSeen(state.storage, /^select .* from "outbox"/i);

      expect(outbox.nextTryAt()).toBeUndefined();
      expect(reads).toHaveLength(1);
      // Known empty: asked again (each turn asks several times), nothing is read.
      expect(outbox.nextTryAt()).toBeUndefined();
      expect(outbox.head()).toBeUndefined();
      expect(outbox.summary()).toEqual({ waiting: 0 });
      outbox.tryNow(5);
      expect(reads).toHaveLength(1);

      const id = outbox.add("answer", parcel("one"), 1_000, {
        attempts: 1,
        nextTryAt: 6_000,
        error: "502",
        uncertain: 0,
      });
      expect(outbox.nextTryAt()).toBe(6_000);
      outbox.add("notice", parcel("two"), 2_000);
      expect(outbox.nextTryAt()).toBe(6_000);
      expect(reads).toHaveLength(1);

      outbox.postpone(id, { nextTryAt: 9_000, holdUntil: 12_000, error: "429", uncertain: 0 });
      expect(outbox.nextTryAt()).toBe(12_000);
      outbox.remove(id);
      expect(outbox.nextTryAt()).toBe(2_000);
      expect(outbox.clear()).toBe(1);
      expect(outbox.nextTryAt()).toBeUndefined();
    });
  });
});
