import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { HistoryMessage } from "../../../src/protocol/messages.ts";
import { session } from "../../worker/helpers.ts";

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
});
