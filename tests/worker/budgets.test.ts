import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { spendSlot } from "../../src/budget/spend-slot.ts";
import {
  admin,
  fakes,
  openaiText,
  openaiToolCalls,
  PRIVATE_CHAT,
  postUpdate,
  say,
  sentText,
  session,
  storedHistory,
  textUpdate,
} from "./helpers.ts";

const configure = (config: unknown) =>
  admin(`/chats/${PRIVATE_CHAT}/config`, { method: "PUT", body: JSON.stringify(config) });

/** Each plain fake answer costs 15 tokens (10 in, 5 out). */
describe("a daily budget", () => {
  it("stops model calls once spent, tells the chat once, keeps its messages, and shows what is left", async () => {
    await configure({ budget: { dailyTokens: 30 }, timezone: "Europe/Berlin" });
    await say("one");
    await say("two", { count: 2 });
    // 30 tokens spent: the next message gets the notice instead of an answer, and the one after gets nothing.
    const notice = await say("three", { count: 3 });
    expect(sentText(notice)).toContain("used today's budget (30 tokens)");
    expect(sentText(notice)).toContain("midnight Europe/Berlin");
    await postUpdate(textUpdate("four"));
    const status = await say("/status", { count: 4 });
    expect(sentText(status)).toContain("Budget today:</b> 0 of 30 tokens left");
    expect(sentText(status)).toContain("Paid calls today:</b> Images 0");
    // The two answered turns' platform cost, estimated; no model price is configured here.
    expect(sentText(status)).toMatch(
      /Platform today \(estimated\):<\/b> \$0\.0000\d\d? for 2 turns; the model's price is not configured/,
    );
    expect(await fakes.requests("openai")).toHaveLength(2);
    const kept = await runInDurableObject(session(PRIVATE_CHAT), (_i, state) =>
      state.storage.sql.exec("SELECT message FROM history WHERE role = 'user'").toArray(),
    );
    expect(kept.map((row) => JSON.parse(String(row.message)).content)).toEqual(["one", "two", "three", "four"]);

    // The next day in the chat's time zone the budget is back.
    await runInDurableObject(session(PRIVATE_CHAT), (instance) => {
      const spend = instance.stores.meta.get(spendSlot);
      if (spend) instance.stores.meta.set(spendSlot, { ...spend, day: "2000-01-01" });
    });
    const answer = await say("five", { count: 5 });
    expect(sentText(answer)).toContain("echo:");
    expect(await fakes.requests("openai")).toHaveLength(3);
  });

  it("stops a tool loop that reaches it, and counts scheduled tasks too", async () => {
    await configure({ budget: { dailyTokens: 25 } });
    // The first call (20 in, 10 out) asks for a tool; the loop does not make a second call past the budget.
    await fakes.script("openai", openaiToolCalls([{ name: "recall", arguments: {} }]), openaiText("never sent"));
    // The first message is the tool's status line, the second the answer.
    const stopped = await say("what do you remember?", { count: 2 });
    expect(sentText(stopped)).toContain("budget for today ran out");
    expect(await fakes.requests("openai")).toHaveLength(1);

    const task = await env.DB.prepare(
      "INSERT INTO tasks (chat_id, created_by_chat, prompt, cron, timezone, status, next_run_at, created_at, updated_at) VALUES (?, ?, 'digest', '0 8 * * *', 'UTC', 'active', ?, 1, 1) RETURNING id",
    )
      .bind(PRIVATE_CHAT, PRIVATE_CHAT, Date.now() - 1000)
      .first<{ id: number }>();
    await session(PRIVATE_CHAT).tasksChanged(PRIVATE_CHAT);
    await expect
      .poll(() =>
        runInDurableObject(session(PRIVATE_CHAT), (_i, state) =>
          state.storage.sql.exec("SELECT error FROM inbox WHERE key LIKE 'task:%'").toArray(),
        ),
      )
      .toEqual([{ error: "over the daily budget; not run" }]);
    expect(task?.id).toBe(1);
    expect(await fakes.requests("openai")).toHaveLength(1);
  });

  it("is refused by the admin API when malformed", async () => {
    const bad = await configure({ budget: { dailyTokens: -1, weekly: 5 }, timezone: "Mars/Olympus" });
    expect(bad.status).toBe(400);
    const details = ((await bad.json()) as { details: { field: string }[] }).details.map((detail) => detail.field);
    expect(details).toEqual(expect.arrayContaining(["budget.dailyTokens", "timezone"]));
  });
});

describe("bounds on what a chat keeps and reads", () => {
  it("prunes the stored transcript past HISTORY_MAX_STORED (10 × the window) after the turn that passes it", async () => {
    await runInDurableObject(session(PRIVATE_CHAT), (instance) => {
      for (let index = 0; index < 410; index++) {
        instance.stores.history.append(
          [{ role: index % 2 === 0 ? "user" : "assistant", content: `old ${index}` }],
          Date.now(),
        );
      }
    });
    await say("still there?");
    const stored = await storedHistory(PRIVATE_CHAT);
    expect(stored).toHaveLength(400);
    expect(stored.at(-1)!.content).toContain("echo: still there?");
    expect(stored[0]!.content).toBe("old 12");
  });

  it("caps the tool results of a whole turn, not only of each call", async () => {
    const page = (path: string) => ({ path, headers: { "content-type": "text/plain" }, text: "x".repeat(30_000) });
    await fakes.script("web", page("/web/a"), page("/web/b"), page("/web/c"));
    const fetchPage = (path: string) => ({ name: "web_fetch", arguments: { url: `${env.FAKES_URL}/web/${path}` } });
    await fakes.script(
      "openai",
      openaiToolCalls([fetchPage("a"), fetchPage("b"), fetchPage("c")]),
      openaiText("read enough"),
    );
    await postUpdate(textUpdate("read three pages"));
    const second = (await fakes.wait("openai", { count: 2 }))[1]!.body as {
      messages: { role: string; content: string }[];
    };
    const results = second.messages.filter((message) => message.role === "tool").map((message) => message.content);
    // Each fetch returns at most 20,000 characters; the turn's limit here is 50,000.
    expect(results[0]!.length).toBeGreaterThan(19_000);
    expect(results[1]!.length).toBeGreaterThan(19_000);
    expect(results[2]).toContain("cut: this turn's tool results reached their limit");
    expect(results.reduce((sum, text) => sum + text.length, 0)).toBeLessThan(50_200);
  });
});
