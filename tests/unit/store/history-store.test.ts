import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { HistoryMessage } from "../../../src/protocol/messages.ts";
import { ChatStores } from "../../../src/store/chat-stores.ts";
import { inboxCodec } from "../../../src/turn/inbox-entries.ts";
import { session } from "../../worker/helpers.ts";
import { statementsSeen } from "./statements-seen.ts";

const exchange = (index: number): HistoryMessage[] => [
  { role: "user", content: `question ${index}` },
  { role: "assistant", content: "", toolCalls: [{ id: `c${index}`, name: "recall", arguments: "{}" }] },
  { role: "tool", toolCallId: `c${index}`, toolName: "recall", content: "nothing" },
  { role: "assistant", content: `answer ${index}` },
];

describe("HistoryStore", () => {
  it("opens the window at a user message, so no tool result loses its call", async () => {
    await runInDurableObject(session(7003), ({ stores }) => {
      for (let index = 0; index < 5; index++) stores.history.append(exchange(index), index);
      const window = stores.history.window(6);
      expect(window[0]).toEqual({ role: "user", content: "question 4" });
      expect(window).toHaveLength(4);
      expect(stores.history.count()).toBe(20);
    });
  });

  it("reaches further back when the last rows hold no user message", async () => {
    await runInDurableObject(session(7003), ({ stores }) => {
      stores.history.append([{ role: "user", content: "start" }], 0);
      for (let index = 0; index < 5; index++) stores.history.append([{ role: "assistant", content: `a${index}` }], 1);
      expect(stores.history.window(3).map((message) => message.content)).toEqual([
        "start",
        "a0",
        "a1",
        "a2",
        "a3",
        "a4",
      ]);
    });
  });

  it("counts and sizes the rows after a summary without reading them, and prunes the oldest", async () => {
    await runInDurableObject(session(7003), ({ stores }) => {
      for (let index = 0; index < 3; index++) stores.history.append(exchange(index), index);
      const all = stores.history.after(0);
      const throughId = all[3]!.id;
      const totals = stores.history.totalsAfter(throughId);
      expect(totals.count).toBe(8);
      expect(totals.bytes).toBe(
        all.slice(4).reduce((sum, row) => sum + new TextEncoder().encode(JSON.stringify(row.message)).length, 0),
      );
      stores.history.prune(4);
      expect(stores.history.after(0).map((row) => row.message.content)).toEqual([
        "question 2",
        "",
        "nothing",
        "answer 2",
      ]);
    });
  });

  it("leaves out a row that no longer reads as a message", async () => {
    await runInDurableObject(session(7003), ({ stores }, state) => {
      stores.history.append([{ role: "user", content: "fine" }], 0);
      state.storage.sql.exec(
        "INSERT INTO history (role, message, created_at) VALUES ('user', '{\"role\":\"user\"}', 1)",
      );
      expect(stores.history.window(10)).toEqual([{ role: "user", content: "fine" }]);
    });
  });

  it("keeps its totals and its ids from its own writes: read once, moved on by appends, forgotten on a rollback", async () => {
    await runInDurableObject(session(7011), ({ stores }, state) => {
      const { history } = stores;
      const statements = statementsSeen(state.storage, /^(select|delete) .*"history"/i);
      const stored = (afterId: number) =>
        state.storage.sql
          .exec<{ count: number; bytes: number | null }>(
            "SELECT count(*) AS count, sum(length(CAST(message AS blob))) AS bytes FROM history WHERE id > ?",
            afterId,
          )
          .one();

      expect(history.totalsAfter(0)).toEqual({ count: 0, bytes: 0 });
      history.append([{ role: "user", content: "naïve 🙂 question" }, ...exchange(1)], 1);
      history.prune(100);
      expect(history.totalsAfter(0)).toEqual({ count: 5, bytes: stored(0).bytes });
      // One totals read and one ids read; the prune found nothing to move without a DELETE.
      expect(statements).toHaveLength(2);

      history.prune(3);
      expect(history.after(0).map((row) => row.message.role)).toEqual(["assistant", "tool", "assistant"]);
      expect(history.totalsAfter(0)).toEqual({ count: 3, bytes: stored(0).bytes });
      history.prune(3);
      expect(statements.filter((query) => /^delete/i.test(query))).toHaveLength(1);

      expect(() =>
        stores.atomically(() => {
          history.append([{ role: "user", content: "undone" }], 2);
          throw new Error("the turn failed");
        }),
      ).toThrow("the turn failed");
      expect(history.totalsAfter(0)).toEqual({ count: 3, bytes: stored(0).bytes });
    });
  });

  it("keeps the window it read, moved on by appends and prunes, as a fresh read would give it", async () => {
    await runInDurableObject(session(7012), ({ stores }, state) => {
      const { history } = stores;
      const fresh = () => new ChatStores(state.storage, inboxCodec).history;
      for (let index = 0; index < 3; index++) history.append(exchange(index), index);
      const reads = statementsSeen(state.storage, /^select .*"history"/i);
      expect(history.window(6)).toEqual(fresh().window(6));
      history.append(exchange(3), 3);
      expect(history.window(6).map((message) => message.content)).toEqual(["question 3", "", "nothing", "answer 3"]);
      expect(history.window(6)).toEqual(fresh().window(6));
      // After a summary the window starts past its id: a new read.
      const throughId = history.after(0)[13]!.id;
      expect(history.window(6, throughId)).toEqual(fresh().window(6, throughId));
      history.prune(2);
      expect(history.window(6)).toEqual([]);
      expect(history.window(6)).toEqual(fresh().window(6));
      // This store read the window three times (first, past the summary, and from the start again); each fresh store
      // once: appends and the prune did not make it read again.
      expect(reads.filter((query) => /desc limit 6$/.test(query))).toHaveLength(3 + 4);

      expect(() =>
        stores.atomically(() => {
          history.append([{ role: "user", content: "undone" }], 4);
          expect(history.window(6).at(-1)).toEqual({ role: "user", content: "undone" });
          throw new Error("the turn failed");
        }),
      ).toThrow("the turn failed");
      expect(history.window(6)).toEqual(fresh().window(6));
    });
  });

  it("writes a turn's rows in as few statements as it can (four rows at most each), in order, with their ids", async () => {
    await runInDurableObject(session(7013), ({ stores }, state) => {
      const { history } = stores;
      const fresh = () => new ChatStores(state.storage, inboxCodec).history;
      history.window(20);
      const inserts = statementsSeen(state.storage, /^insert into "history"/i);
      history.append(
        [
          { role: "user", content: "question" },
          { role: "assistant", content: "answer" },
        ],
        1,
      );
      expect(inserts).toHaveLength(1);
      history.append([...exchange(1), { role: "user", content: "and then" }, ...exchange(2)], 2);
      // Nine rows: four, four and one.
      expect(inserts).toHaveLength(4);
      const stored = history.after(0);
      expect(stored.map((row) => row.message.content)).toEqual([
        "question",
        "answer",
        ...exchange(1).map((message) => message.content),
        "and then",
        ...exchange(2).map((message) => message.content),
      ]);
      const ids = stored.map((row) => row.id);
      expect(ids).toEqual([...ids].sort((left, right) => left - right));
      expect(history.window(20)).toEqual(fresh().window(20));
      expect(history.totalsAfter(0)).toEqual(fresh().totalsAfter(0));
    });
  });
});
