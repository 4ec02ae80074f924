import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import chatMigrations from "../../../src/db/chat-migrations/migrations.js";
import type { HistoryMessage } from "../../../src/protocol/messages.ts";
import type { ChatStores } from "../../../src/store/chat-stores.ts";
import { searchIndexedThroughIdSlot } from "../../../src/store/store-slots.ts";
import { session } from "../../worker/helpers.ts";
import { statementsSeen } from "./statements-seen.ts";

const DAY = 24 * 60 * 60 * 1000;
const START = Date.parse("2026-01-01T00:00:00Z");
const words = (text: string) => text.toLowerCase().split(/\s+/);
const best = (stores: ChatStores, text: string, limit = 5) =>
  stores.historySearch.keyword({ words: words(text), limit, order: "best" });

/** A deterministic chatter of common words, so that BM25 has real word frequencies to rank against. */
const VOCABULARY = (
  "the a we you it is was to and of in on for that this with what when where lunch dinner meeting tomorrow today " +
  "train ticket weather rain sun movie book music work office project deadline email phone call doctor gym walk " +
  "coffee tea shop market price money bank card trip holiday flight hotel beach mountain city friend family code"
).split(" ");

function chatter(index: number): string {
  let seed = index * 7919 + 17;
  const next = () => {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    return seed >>> 8;
  };
  return Array.from({ length: 6 + (next() % 10) }, () => VOCABULARY[next() % VOCABULARY.length]).join(" ");
}

/** `count` stored messages, alternating user and assistant, a minute apart from START, in one transaction. */
function indexExists(state: DurableObjectState): boolean {
  return (
    state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history_search'").toArray()
      .length > 0
  );
}

function seed(stores: ChatStores, count: number, special: Map<number, HistoryMessage> = new Map()): void {
  stores.atomically(() => {
    for (let index = 0; index < count; index++) {
      const message: HistoryMessage = special.get(index) ?? {
        role: index % 2 === 0 ? "user" : "assistant",
        content: chatter(index),
      };
      stores.history.append([message], START + index * 60_000);
    }
  });
}

describe("the history's full-text index", () => {
  it("indexes user and assistant words, transcripts and file names, but not tool calls or their results", async () => {
    await runInDurableObject(session(7101), ({ stores }) => {
      stores.history.append(
        [
          { role: "user", content: "Ada: the wifi password is aubergine42" },
          {
            role: "assistant",
            content: "",
            toolCalls: [{ id: "c1", name: "remember", arguments: '{"fact":"zebra"}' }],
          },
          { role: "tool", toolCallId: "c1", toolName: "remember", content: "Remembered zebra." },
          {
            role: "user",
            content: "",
            attachments: [
              {
                kind: "transcript",
                mediaType: "audio/ogg",
                size: 10,
                source: "voice",
                text: "remind me about the dentist",
                transcribedBy: "telegram",
              },
              { kind: "document", key: "telegram/doc", mediaType: "application/pdf", size: 5, fileName: "lease.pdf" },
            ],
          },
          { role: "assistant", content: "Noted the wifi password." },
        ],
        START,
      );
      expect(best(stores, "aubergine42").map((hit) => hit.text)).toEqual(["Ada: the wifi password is aubergine42"]);
      expect(best(stores, "zebra")).toEqual([]);
      expect(best(stores, "dentist")[0]?.text).toBe("remind me about the dentist\nlease.pdf");
      expect(best(stores, "lease")).toHaveLength(1);
      // Stems and prefixes: "passwords" finds "password", "aubergine" finds "aubergine42".
      expect(best(stores, "passwords")).toHaveLength(2);
      expect(best(stores, "aubergine")).toHaveLength(1);
      // FTS5 syntax in the words is searched for, never run.
      expect(best(stores, 'wifi" OR "zebra NEAR(x')).toHaveLength(2);
    });
  });

  it("keeps archived rows searchable: pruning and /new move rows, the window is unchanged, retention deletes", async () => {
    await runInDurableObject(session(7102), ({ stores }) => {
      seed(stores, 50, new Map([[0, { role: "user", content: "my locker code is 4711" }]]));
      const windowBefore = stores.history.window(10);
      stores.history.prune(20);
      expect(stores.history.count()).toBe(20);
      expect(stores.historySearch.archived()).toBe(30);
      expect(stores.history.window(10)).toEqual(windowBefore);
      expect(best(stores, "locker")[0]?.text).toBe("my locker code is 4711");

      stores.history.clear();
      expect(stores.history.count()).toBe(0);
      expect(stores.history.window(10)).toEqual([]);
      expect(stores.historySearch.archived()).toBe(50);
      expect(best(stores, "locker")).toHaveLength(1);

      // Retention: archived rows before a time go, with their index entries, a batch at a time.
      const first = stores.historySearch.forgetArchivedBefore(START + 10 * 60_000, 4);
      expect(first).toEqual([1, 2, 3, 4]);
      expect(best(stores, "locker")).toEqual([]);
      expect(stores.historySearch.forgetArchivedBefore(START + 10 * 60_000, 100)).toHaveLength(6);
      expect(stores.historySearch.archived()).toBe(40);
      expect(stores.historySearch.byIds([1, 11, 12]).map((hit) => hit.id)).toEqual([11, 12]);
    });
  });

  it("indexes on read: a turn's writes touch no index, the next search indexes them, moved to the archive or not", async () => {
    await runInDurableObject(session(7104), ({ stores }, state) => {
      const indexWrites = statementsSeen(state.storage, /insert into history_search/i);
      const indexed = () => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM history_search").one().n;
      seed(stores, 6, new Map([[1, { role: "assistant", content: "the ferry leaves at nine" }]]));
      expect(indexExists(state)).toBe(false);
      // Written and moved to the archive before any search: the archive's rows are indexed too.
      stores.history.prune(2);
      expect(stores.historySearch.archived()).toBe(4);
      expect(best(stores, "ferry").map((hit) => hit.id)).toEqual([2]);
      expect(indexWrites).toHaveLength(1);
      expect(indexed()).toBe(6);
      expect(stores.meta.get(searchIndexedThroughIdSlot)).toBe(6);

      // Nothing new: one read, no write.
      const reads = statementsSeen(state.storage, /max\(id\)/i);
      expect(best(stores, "ferry")).toHaveLength(1);
      expect(stores.historySearch.byIds([2]).map((hit) => hit.text)).toEqual(["the ferry leaves at nine"]);
      expect(indexWrites).toHaveLength(1);
      expect(reads).toHaveLength(2);

      // Rows after the mark are found by every way of reading: words, ids, and the vector index's catch-up.
      stores.history.append([{ role: "user", content: "and the ferry back?" }], START);
      expect(stores.historySearch.byIds([7]).map((hit) => hit.text)).toEqual(["and the ferry back?"]);
      stores.history.append([{ role: "user", content: "kayak" }], START);
      expect(stores.historySearch.after(7, 10).map((hit) => hit.text)).toEqual(["kayak"]);
      expect(best(stores, "ferry").map((hit) => hit.id)).toEqual(expect.arrayContaining([2, 7]));
    });
  });

  it("is created by its first read: a new chat has none, an erase or retention before it deletes without one", async () => {
    await runInDurableObject(session(7107), ({ stores }, state) => {
      const creations = statementsSeen(state.storage, /create virtual table/i);
      seed(stores, 6, new Map([[0, { role: "user", content: "my locker code is 4711" }]]));
      stores.history.prune(2);
      expect(stores.historySearch.forgetArchivedBefore(START + 60_000, 1)).toEqual([1]);
      stores.atomically(() => {
        stores.history.clear();
        expect(stores.person.eraseArchived()).toBe(5);
      });
      expect(indexExists(state)).toBe(false);

      stores.history.append([{ role: "user", content: "the locker is number 12" }], START);
      expect(best(stores, "locker").map((hit) => hit.text)).toEqual(["the locker is number 12"]);
      expect(indexExists(state)).toBe(true);
      expect(creations).toHaveLength(1);
      expect(stores.meta.get(searchIndexedThroughIdSlot)).toBe(7);
      // From now on an archived row deleted for good takes its entry with it (the trigger came with the index).
      stores.history.clear();
      expect(stores.historySearch.forgetArchivedBefore(START + 60_000, 10)).toEqual([7]);
      expect(best(stores, "locker")).toEqual([]);
      expect(stores.historySearch.after(0, 10)).toEqual([]);
      expect(creations).toHaveLength(1);
    });
  });

  it("a mark that fell behind indexes again without failing or doubling an entry", async () => {
    await runInDurableObject(session(7105), ({ stores }, state) => {
      seed(stores, 4, new Map([[0, { role: "user", content: "my locker code is 4711" }]]));
      expect(best(stores, "locker")).toHaveLength(1);
      stores.meta.set(searchIndexedThroughIdSlot, 0);
      expect(best(stores, "locker")).toHaveLength(1);
      expect(stores.meta.get(searchIndexedThroughIdSlot)).toBe(4);
      const entries = state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM history_search").one().n;
      expect(entries).toBe(4);
    });
  });

  it("the migration from the trigger marks every row written so far, live or archived, as indexed", async () => {
    await runInDurableObject(session(7106), ({ stores }, state) => {
      // Everything moved to the archive (/new): the newest row is an archived one.
      seed(stores, 5);
      stores.history.clear();
      // As an object that indexed by trigger would stand before 0005: the mark is what the migration writes.
      state.storage.sql.exec("DELETE FROM meta WHERE key = 'searchIndexedThroughId'");
      const mark = chatMigrations.migrations.m0005.split("--> statement-breakpoint")[1]!;
      state.storage.sql.exec(mark);
      const row = state.storage.sql.exec<{ value: string }>(
        "SELECT value FROM meta WHERE key = 'searchIndexedThroughId'",
      );
      expect(row.one().value).toBe("5");
    });
  });

  it("ranks 10,000 stored messages: all the words first, then by BM25 over the rarer words", async () => {
    await runInDurableObject(session(7103), ({ stores }) => {
      seed(
        stores,
        10_000,
        new Map<number, HistoryMessage>([
          [0, { role: "user", content: "Remember: my locker code at the gym is 4711" }],
          [5_000, { role: "user", content: "Bob: we decided the March trip goes to Lisbon by train" }],
          [5_001, { role: "assistant", content: "Lisbon in March it is." }],
          [9_000, { role: "user", content: "the gym changed the locker rules" }],
        ]),
      );
      expect(stores.history.count()).toBe(10_000);

      const locker = best(stores, "what did I say my locker code was");
      expect(locker[0]?.text).toBe("Remember: my locker code at the gym is 4711");
      // The other message with "locker" comes next, before the thousands that only share "code" or "my".
      expect(locker[1]?.text).toBe("the gym changed the locker rules");

      const trip = best(stores, "what did we decide about the trip in March", 3);
      expect(trip.map((hit) => hit.id).slice(0, 2)).toEqual([5_001, 5_002]);
      expect(trip[0]?.text.startsWith("Bob: ")).toBe(true);

      // Newest first: by row, whatever the rank.
      const newest = stores.historySearch.keyword({ words: ["locker"], limit: 5, order: "newest" });
      expect(newest.map((hit) => hit.id)).toEqual([9_001, 1]);
      // Dates narrow it: the first minute only.
      const early = stores.historySearch.keyword({ words: ["locker"], limit: 5, order: "best", until: START + 60_000 });
      expect(early.map((hit) => hit.id)).toEqual([1]);
      const late = stores.historySearch.keyword({ words: ["locker"], limit: 5, order: "best", from: START + DAY });
      expect(late.map((hit) => hit.id)).toEqual([9_001]);

      // Three common words (each in a sixth of the messages): the messages holding all three come first.
      const all = best(stores, "coffee meeting tomorrow", 10);
      expect(all).toHaveLength(10);
      for (const hit of all) expect(words(hit.text)).toEqual(expect.arrayContaining(["coffee", "meeting", "tomorrow"]));

      // A common word matches thousands; the limit holds and each hit is short.
      const common = best(stores, "coffee", 20);
      expect(common).toHaveLength(20);
      expect(Math.max(...common.map((hit) => hit.text.length))).toBeLessThanOrEqual(600);
    });
  });
});
