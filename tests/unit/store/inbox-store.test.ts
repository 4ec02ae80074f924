import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ChatStores } from "../../../src/store/chat-stores.ts";
import type { IncomingMessage } from "../../../src/telegram/incoming-message.ts";
import { inboxCodec } from "../../../src/turn/inbox-entries.ts";
import { session } from "../../worker/helpers.ts";
import { laterLife } from "./later-life.ts";
import { statementsSeen } from "./statements-seen.ts";

const message = (updateId: number, text = `m${updateId}`): IncomingMessage => ({
  updateId,
  messageId: updateId,
  chat: { id: 7002, type: "private", isForum: false },
  text,
  date: 1,
});

describe("InboxStore", () => {
  it("takes a redelivered update once, waiting rows in order, and counts each take as an attempt", async () => {
    await runInDurableObject(session(7002), ({ stores }) => {
      const first = stores.inbox.enqueue("update:1", { kind: "message", message: message(1) }, 1);
      expect(stores.inbox.enqueue("update:1", { kind: "message", message: message(1) }, 2)).toBeUndefined();
      stores.inbox.enqueue("task:9:1", { kind: "task", task: { taskId: 9, prompt: "stretch", dueAt: 1 } }, 3);
      expect(first).toBeTypeOf("number");
      expect(stores.inbox.hasPending()).toBe(true);

      const taken = stores.inbox.takePending();
      expect(taken.map((item) => item.kind)).toEqual(["message", "task"]);
      expect(taken.every((item) => item.attempts === 1)).toBe(true);
      // Still `processing` (the run died): taken again, with the attempt counted.
      expect(stores.inbox.takePending().map((item) => item.attempts)).toEqual([2, 2]);

      stores.inbox.finish(
        taken.map((item) => item.id),
        4,
      );
      expect(stores.inbox.hasPending()).toBe(false);
      expect(stores.inbox.takePending()).toEqual([]);
    });
  });

  it("reads each row back through its kind's schema; a row none reads is handed over as unreadable", async () => {
    await runInDurableObject(session(7002), ({ stores }, state) => {
      stores.inbox.enqueue("update:2", { kind: "message", message: message(2, "kept") }, 1);
      state.storage.sql.exec(
        "INSERT INTO inbox (key, kind, payload, received_at) VALUES ('update:3', 'message', '{\"text\":5}', 2), ('update:4', 'task', 'not json', 3)",
      );
      const [kept, wrongShape, notJson] = stores.inbox.takePending();
      expect(kept).toMatchObject({ kind: "message", message: { text: "kept" } });
      expect(wrongShape).toMatchObject({
        kind: "unreadable",
        problem: "its message does not match the current schema",
      });
      expect(notJson).toMatchObject({ kind: "unreadable", problem: "its payload is not JSON" });
    });
  });

  it("hands back the entries it wrote as given; another life of the object reads the same rows back as stored", async () => {
    await runInDurableObject(session(7009), ({ stores }, state) => {
      const written = message(5, "as given");
      stores.inbox.enqueue("update:5", { kind: "message", message: written }, 1);
      const [taken] = stores.inbox.takePending();
      expect(taken).toMatchObject({ kind: "message", attempts: 1 });
      expect(taken?.kind === "message" && taken.message).toBe(written);

      // A new store over the same storage (the object restarted) has nothing in memory: it parses the stored row.
      const fresh = new ChatStores(state.storage, inboxCodec).inbox;
      const [again] = fresh.takePending();
      expect(again).toMatchObject({ id: taken?.id, kind: "message", attempts: 2, message: { text: "as given" } });
      expect(again?.kind === "message" && again.message).not.toBe(written);
    });
  });

  it("forgets an entry once its row is finished or erased, so a later take cannot hand back what was finished", async () => {
    await runInDurableObject(session(7010), ({ stores }, state) => {
      const id = stores.inbox.enqueue("guest:6", { kind: "message", message: message(6, "secret") }, 1);
      if (id === undefined) throw new Error("not queued");
      stores.inbox.erase([id]);
      // The row waits again (as after a crash), with its payload blanked: read back as stored, not as written.
      state.storage.sql.exec("UPDATE inbox SET status = 'pending' WHERE id = ?", id);
      const [taken] = new ChatStores(state.storage, inboxCodec).inbox.takePending();
      expect(taken).toMatchObject({ kind: "unreadable" });
      expect(stores.inbox.takePending()).toMatchObject([{ kind: "unreadable" }]);
    });
  });

  it("knows whether anything waits from its own writes, reading the table once", async () => {
    await runInDurableObject(session(7008), async (_instance, state) => {
      const { inbox } = await laterLife(state.storage);
      const reads = statementsSeen(state.storage, /^select .* from "inbox"/i);
      expect(inbox.hasPending()).toBe(false);
      expect(inbox.takePending()).toEqual([]);
      const first = inbox.enqueue("update:1", { kind: "message", message: message(1) }, 1)!;
      inbox.enqueue("update:2", { kind: "message", message: message(2) }, 2);
      expect(inbox.hasPending()).toBe(true);
      const taken = inbox.takePending().map((item) => item.id);
      expect(taken).toHaveLength(2);
      // Taken but not finished: still waiting (a run that dies leaves them to be taken again).
      expect(inbox.hasPending()).toBe(true);
      inbox.finish([first], 3);
      expect(inbox.hasPending()).toBe(true);
      inbox.finish(taken.slice(1), 4);
      expect(inbox.hasPending()).toBe(false);
      expect(inbox.takePending()).toEqual([]);
      expect(reads).toHaveLength(1);

      // A row it did not take (finished twice): it cannot say what changed, so it reads again.
      inbox.finish([first], 5, "again");
      expect(inbox.hasPending()).toBe(false);
      expect(reads).toHaveLength(2);
    });
  });

  it("reads again after a rolled-back write, so a message whose finish was undone is taken again", async () => {
    await runInDurableObject(session(7009), ({ stores }) => {
      const { inbox } = stores;
      inbox.enqueue("update:1", { kind: "message", message: message(1) }, 1);
      const [item] = inbox.takePending();
      expect(() =>
        stores.atomically(() => {
          inbox.finish([item!.id], 2);
          throw new Error("the turn failed");
        }),
      ).toThrow("the turn failed");
      expect(inbox.hasPending()).toBe(true);
      expect(inbox.takePending().map((taken) => taken.id)).toEqual([item!.id]);
    });
  });

  it("hands out a row written as taken with no statement, its attempt counted once, and a new life takes it again", async () => {
    await runInDurableObject(session(7011), ({ stores }, state) => {
      const { inbox } = stores;
      const takes = statementsSeen(state.storage, /^update "inbox" set "status"/i);
      const id = inbox.enqueue("update:1", { kind: "message", message: message(1) }, 1, true);
      expect(state.storage.sql.exec("SELECT status, attempts FROM inbox WHERE id = ?", id).one()).toEqual({
        status: "processing",
        attempts: 1,
      });
      expect(inbox.takePending()).toMatchObject([{ id, kind: "message", attempts: 1 }]);
      expect(takes).toEqual([]);
      expect(inbox.takePending()).toMatchObject([{ id, attempts: 2 }]);
      expect(takes).toHaveLength(1);

      // Written as taken and never handed out (the object died before its drain took it): taken again, once more.
      const lost = inbox.enqueue("update:2", { kind: "message", message: message(2) }, 2, true);
      expect(new ChatStores(state.storage, inboxCodec).inbox.takePending()).toMatchObject([
        { id, attempts: 3 },
        { id: lost, attempts: 2 },
      ]);
    });
  });

  it("takes a row written as taken with others in one statement, without counting its attempt twice", async () => {
    await runInDurableObject(session(7012), ({ stores }) => {
      const { inbox } = stores;
      const taken = inbox.enqueue("update:1", { kind: "message", message: message(1) }, 1, true);
      const after = inbox.enqueue("update:2", { kind: "message", message: message(2) }, 2);
      expect(inbox.takePending()).toMatchObject([
        { id: taken, attempts: 1 },
        { id: after, attempts: 1 },
      ]);
      inbox.finish([taken!, after!], 3);
      expect(inbox.hasPending()).toBe(false);
    });
  });

  it("counts only what it took when a take is cut at its limit", async () => {
    await runInDurableObject(session(7010), ({ stores }) => {
      const { inbox } = stores;
      for (let index = 1; index <= 3; index++)
        inbox.enqueue(`update:${index}`, { kind: "message", message: message(index) }, index);
      const firstTwo = inbox.takePending(2);
      inbox.finish(
        firstTwo.map((item) => item.id),
        4,
      );
      expect(inbox.hasPending()).toBe(true);
      expect(inbox.takePending(2)).toHaveLength(1);
    });
  });

  it("prunes answered and failed rows a week old, never a waiting one or a newer one, with one statement built once", async () => {
    await runInDurableObject(session(7003), ({ stores }, state) => {
      const week = 7 * 24 * 60 * 60 * 1000;
      const old = [1, 2, 3].map(
        (id) => stores.inbox.enqueue(`update:${id}`, { kind: "message", message: message(id) }, 1)!,
      );
      const recent = stores.inbox.enqueue("update:4", { kind: "message", message: message(4) }, week)!;
      stores.inbox.takePending();
      stores.inbox.finish([old[0]!, recent], week + 1);
      stores.inbox.finish([old[1]!], week + 1, "refused");
      const deletes = statementsSeen(state.storage, /^delete from "inbox"/i);
      stores.inbox.pruneFinished(week + 2);
      stores.inbox.pruneFinished(week + 3);
      const left = state.storage.sql.exec<{ id: number }>("SELECT id FROM inbox ORDER BY id").toArray();
      expect(left.map((row) => row.id)).toEqual([old[2], recent]);
      expect(new Set(deletes).size).toBe(1);
    });
  });
});
