import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { prunedAtSlot } from "../../../src/durable/chat-slots.ts";
import { ChatStores } from "../../../src/store/chat-stores.ts";
import { inboxCodec } from "../../../src/turn/inbox-entries.ts";
import { session } from "../../worker/helpers.ts";
import { laterLife } from "./later-life.ts";
import { statementsSeen } from "./statements-seen.ts";

const READS = /^select .* from "(inbox|outbox|usage_buffer|meta)"/i;

describe("ChatStores", () => {
  it("knows a database it just created empty: the inbox, outbox, usage buffer and meta answer without a read", async () => {
    await runInDurableObject(session(7201), ({ stores }, state) => {
      const reads = statementsSeen(state.storage, READS);
      expect(stores.inbox.hasPending()).toBe(false);
      expect(stores.outbox.nextTryAt()).toBeUndefined();
      expect(stores.usage.oldestAt()).toBeUndefined();
      expect(reads).toEqual([]);
      // Nothing finished to prune for an hour: the first drain does not try.
      expect(stores.meta.get(prunedAtSlot)).toBeTypeOf("number");
    });
  });

  it("reads none of the tables of a database it creates (a wiped object starting again), nor makes a search index", async () => {
    await runInDurableObject(session(7203), async (_instance, state) => {
      await state.storage.deleteAll();
      const statements = statementsSeen(state.storage, /./);
      const stores = new ChatStores(state.storage, inboxCodec);
      expect(await stores.migrate()).toEqual({ fresh: true });
      expect(stores.meta.get(prunedAtSlot)).toBeUndefined();
      expect(stores.inbox.hasPending()).toBe(false);
      expect(statements.filter((statement) => READS.test(statement))).toEqual([]);
      // Nor the search index, which its first read creates (history-search.ts).
      expect(statements.filter((statement) => /fts5/i.test(statement))).toEqual([]);
    });
  });

  it("reads what a database it did not create holds: a later life of the object finds the rows", async () => {
    await runInDurableObject(session(7202), async ({ stores }, state) => {
      stores.inbox.enqueue(
        "update:1",
        {
          kind: "message",
          message: {
            updateId: 1,
            messageId: 1,
            chat: { id: 7202, type: "private", isForum: false },
            text: "hi",
            date: 1,
          },
        },
        1,
      );
      stores.outbox.add(
        "notice",
        { target: { chatId: 7202 }, steps: [{ kind: "send", piece: { piece: "later" } }] },
        2,
      );
      stores.usage.add(
        {
          chatId: 7202,
          kind: "chat",
          provider: "openai",
          model: "gpt-test",
          inputTokens: 1,
          outputTokens: 1,
          toolCalls: 0,
          durationMs: 1,
          outcome: "ok",
          createdAt: 3,
        },
        3,
      );

      const later = await laterLife(state.storage);
      const reads = statementsSeen(state.storage, READS);
      expect(later.inbox.hasPending()).toBe(true);
      expect(later.outbox.nextTryAt()).toBe(2);
      expect(later.usage.oldestAt()).toBe(3);
      expect(later.meta.get(prunedAtSlot)).toBeTypeOf("number");
      expect(reads).toHaveLength(4);
    });
  });
});
