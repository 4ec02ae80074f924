import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { UsageRecord } from "../../../src/db/usage.ts";
import { session } from "../../worker/helpers.ts";
import { laterLife } from "./later-life.ts";
import { statementsSeen } from "./statements-seen.ts";

const record = (createdAt: number): UsageRecord => ({
  chatId: 7005,
  kind: "chat",
  provider: "openai",
  model: "gpt-test",
  inputTokens: 10,
  outputTokens: 5,
  toolCalls: 0,
  durationMs: 100,
  outcome: "ok",
  costUsd: null,
  createdAt,
});

describe("UsageBuffer", () => {
  it("hands over a batch with its last row, leaving out (and so dropping) rows no schema reads", async () => {
    await runInDurableObject(session(7005), ({ stores }, state) => {
      expect(stores.usage.oldestAt()).toBeUndefined();
      stores.usage.add(record(1), 100);
      state.storage.sql.exec('INSERT INTO usage_buffer (record, created_at) VALUES (\'{"chatId":"x"}\', 101)');
      stores.usage.add(record(2), 102);
      expect(stores.usage.oldestAt()).toBe(100);

      const batch = stores.usage.batch();
      expect(batch.records.map((row) => row.record.createdAt)).toEqual([1, 2]);
      stores.usage.drop(batch.lastId!);
      expect(stores.usage.batch()).toEqual({ records: [], lastId: undefined });
    });
  });

  it("keeps the oldest record's time until a batch or a drop changes it", async () => {
    await runInDurableObject(session(7006), async (_instance, state) => {
      const stores = await laterLife(state.storage);
      const reads = statementsSeen(state.storage, /^select .* from "usage_buffer"/i);

      expect(stores.usage.oldestAt()).toBeUndefined();
      stores.usage.add(record(1), 100);
      stores.usage.add(record(2), 200);
      expect(stores.usage.oldestAt()).toBe(100);
      expect(reads).toHaveLength(1);

      // A batch that left rows behind: what is oldest now is read.
      const batch = stores.usage.batch(1);
      stores.usage.drop(batch.lastId!);
      expect(stores.usage.oldestAt()).toBe(200);
      expect(reads).toHaveLength(3);
      // A batch of every row, and one record added while it was being written: that record is the oldest, unread.
      const whole = stores.usage.batch();
      stores.usage.add(record(3), 300);
      stores.usage.drop(whole.lastId!);
      expect(stores.usage.oldestAt()).toBe(300);
      stores.usage.drop(stores.usage.batch().lastId!);
      expect(stores.usage.oldestAt()).toBeUndefined();
      expect(reads).toHaveLength(5);
      expect(stores.usage.batch()).toEqual({ records: [], lastId: undefined });
    });
  });

  it("forgets what it knew when a write is rolled back", async () => {
    await runInDurableObject(session(7007), ({ stores }) => {
      expect(stores.usage.oldestAt()).toBeUndefined();
      expect(() =>
        stores.atomically(() => {
          stores.usage.add(record(1), 100);
          throw new Error("the turn failed");
        }),
      ).toThrow("the turn failed");
      expect(stores.usage.oldestAt()).toBeUndefined();
      const whole = stores.usage.batch();
      expect(whole.lastId).toBeUndefined();
    });
  });
});
