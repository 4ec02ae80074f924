import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { targetSlot } from "../../src/durable/chat-slots.ts";
import {
  fakes,
  flushUsageNow,
  GROUP_CHAT,
  openaiText,
  openaiToolCalls,
  PRIVATE_CHAT,
  say,
  sentText,
  session,
  settled,
} from "./helpers.ts";

/** Time passes for the task: its due time moves into the past, and its chat's object is told, as a tool would. */
async function makeDue(taskId: number, dueAt = Date.now() - 1000, chatId = PRIVATE_CHAT): Promise<void> {
  await env.DB.prepare("UPDATE tasks SET next_run_at = ? WHERE id = ?").bind(dueAt, taskId).run();
  await session(chatId).tasksChanged(chatId);
}

async function insertTask(values: {
  cron?: string;
  runAt?: number;
  prompt: string;
  nextRunAt: number;
  chatId?: number;
  createdByChat?: number;
  createdByUser?: number;
}): Promise<number> {
  const now = Date.now();
  const result = await env.DB.prepare(
    "INSERT INTO tasks (chat_id, created_by_chat, created_by_user, prompt, run_at, cron, timezone, status, next_run_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'UTC', 'active', ?, ?, ?) RETURNING id",
  )
    .bind(
      values.chatId ?? PRIVATE_CHAT,
      values.createdByChat ?? values.chatId ?? PRIVATE_CHAT,
      values.createdByUser ?? null,
      values.prompt,
      values.runAt ?? null,
      values.cron ?? null,
      values.nextRunAt,
      now,
      now,
    )
    .first<{ id: number }>();
  return result!.id;
}

const runs = (taskId: number) =>
  env.DB.prepare(
    "SELECT outcome, error, finished_at IS NOT NULL AS finished FROM task_runs WHERE task_id = ? ORDER BY id",
  )
    .bind(taskId)
    .all();

describe("scheduled tasks", () => {
  it("a reminder scheduled by the model arms the alarm and later runs as a turn whose answer goes to the chat", async () => {
    const at = new Date(Date.now() + 120_000).toISOString();
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "schedule_task", arguments: { prompt: "Remind Ada to stretch", at } }]),
      openaiText("I'll remind you in 2 minutes."),
    );
    await say("remind me in 2 minutes to stretch", { count: 2 });

    const task = await env.DB.prepare("SELECT id, next_run_at FROM tasks").first<{ id: number; next_run_at: number }>();
    expect(task!.next_run_at).toBe(Date.parse(at));
    // Once the turn has finished and its usage is written, the chat's alarm is the task's time.
    await settled(PRIVATE_CHAT);
    await flushUsageNow(PRIVATE_CHAT);
    await expect
      .poll(() => runInDurableObject(session(PRIVATE_CHAT), (_i, state) => state.storage.getAlarm()))
      .toBe(Date.parse(at));

    await fakes.script("openai", openaiText("⏰ Time to stretch, Ada!"));
    await makeDue(task!.id);
    const reminder = await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT, count: 3 });
    expect(sentText(reminder[2])).toBe("⏰ Time to stretch, Ada!");
    const prompt = (
      (await fakes.requests("openai")).at(-1)!.body as { messages: { role: string; content: string }[] }
    ).messages.at(-1)!;
    expect(prompt.content).toMatch(/^\[Scheduled task #1, running now/);
    expect(prompt.content).toContain("Remind Ada to stretch");

    await expect
      .poll(async () => (await runs(task!.id)).results)
      .toEqual([{ outcome: "ok", error: null, finished: 1 }]);
    expect(await env.DB.prepare("SELECT status, next_run_at, last_outcome FROM tasks").first()).toEqual({
      status: "done",
      next_run_at: null,
      last_outcome: "ok",
    });
  });

  it("a recurring task runs again at its next time", async () => {
    const taskId = await insertTask({
      cron: "0 8 * * *",
      prompt: "Morning briefing",
      nextRunAt: Date.now() + 3_600_000,
    });
    await makeDue(taskId);
    await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT, count: 1 });
    await expect.poll(async () => (await runs(taskId)).results.length).toBe(1);
    const next = await env.DB.prepare("SELECT next_run_at, status FROM tasks WHERE id = ?")
      .bind(taskId)
      .first<{ next_run_at: number; status: string }>();
    expect(next!.status).toBe("active");
    expect(next!.next_run_at).toBeGreaterThan(Date.now());
    expect(new Date(next!.next_run_at).getUTCHours()).toBe(8);

    await makeDue(taskId);
    await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT, count: 2 });
    await expect.poll(async () => (await runs(taskId)).results.length).toBe(2);
  });

  it("runs a task missed several times while the object was down once, not once per missed time", async () => {
    const taskId = await insertTask({ cron: "0 * * * *", prompt: "Hourly check", nextRunAt: Date.now() + 3_600_000 });
    await makeDue(taskId, Date.now() - 3 * 24 * 3_600_000);
    await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT, count: 1 });
    await expect.poll(async () => (await runs(taskId)).results.length).toBe(1);
    // The run is recorded before its drain ends (the drain sets the alarm as it ends): wait for the drain.
    await settled(PRIVATE_CHAT);
    // No further run is queued: the next time is in the future and the alarm waits for it.
    expect(await runDurableObjectAlarm(session(PRIVATE_CHAT))).toBe(true);
    expect((await runs(taskId)).results).toHaveLength(1);
    expect(await fakes.requests("openai")).toHaveLength(1);
  });

  it("reports a failed run in the chat and records it", async () => {
    const taskId = await insertTask({
      runAt: Date.now() + 60_000,
      prompt: "Fetch the news",
      nextRunAt: Date.now() + 60_000,
    });
    await fakes.script("openai", { status: 401, body: { error: { message: "bad key" } } });
    await makeDue(taskId);
    const [report] = await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    expect(sentText(report)).toMatch(
      /^Scheduled task #1 failed\. ⚠️ OpenAI refused this bot's credentials \(OPENAI_API_KEY\)/,
    );
    await expect
      .poll(async () => (await runs(taskId)).results)
      .toEqual([{ outcome: "error", error: expect.stringContaining("auth"), finished: 1 }]);
    expect(await env.DB.prepare("SELECT last_outcome FROM tasks").first("last_outcome")).toBe("error");
  });

  it("does not run a task cancelled after it was queued, and uses the prompt as updated", async () => {
    const cancelled = await insertTask({
      runAt: Date.now() + 60_000,
      prompt: "Cancelled one",
      nextRunAt: Date.now() + 60_000,
    });
    const updated = await insertTask({
      runAt: Date.now() + 60_000,
      prompt: "Old prompt",
      nextRunAt: Date.now() + 60_000,
    });
    // Both are queued in the inbox as due, then changed in D1 before they run.
    await runInDurableObject(session(PRIVATE_CHAT), async (instance, state) => {
      const stores = instance.stores;
      stores.meta.set(targetSlot, { chatId: PRIVATE_CHAT });
      stores.inbox.enqueue(
        `task:${cancelled}:1`,
        { kind: "task", task: { taskId: cancelled, prompt: "Cancelled one", dueAt: 1 } },
        Date.now(),
      );
      stores.inbox.enqueue(
        `task:${updated}:1`,
        { kind: "task", task: { taskId: updated, prompt: "Old prompt", dueAt: 1 } },
        Date.now(),
      );
      await env.DB.prepare("UPDATE tasks SET status = 'cancelled' WHERE id = ?").bind(cancelled).run();
      await env.DB.prepare("UPDATE tasks SET prompt = 'New prompt' WHERE id = ?").bind(updated).run();
      await state.storage.setAlarm(Date.now());
    });
    await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    const prompts = (await fakes.requests("openai")).map(
      (request) => (request.body as { messages: { content: string }[] }).messages.at(-1)!.content,
    );
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain("New prompt");
    expect((await runs(cancelled)).results).toEqual([]);
  });

  it("/tasks lists the chat's tasks with their next run", async () => {
    await insertTask({
      cron: "30 7 * * 1-5",
      prompt: "Weekday standup reminder",
      nextRunAt: Date.parse("2030-01-07T07:30:00Z"),
    });
    const listed = sentText(await say("/tasks"));
    expect(listed).toContain("<b>Scheduled tasks</b>");
    expect(listed).toContain("every <code>30 7 * * 1-5</code> (UTC), next Mon, 7 Jan 2030, 07:30");
    expect(listed).toContain("Weekday standup reminder");
  });

  it("a restart of the object loses nothing: the alarm and the task survive eviction", async () => {
    const taskId = await insertTask({
      runAt: Date.now() + 60_000,
      prompt: "After restart",
      nextRunAt: Date.now() + 60_000,
    });
    await session(PRIVATE_CHAT).tasksChanged(PRIVATE_CHAT);
    await evictDurableObject(session(PRIVATE_CHAT));
    expect(await runInDurableObject(session(PRIVATE_CHAT), (_i, state) => state.storage.getAlarm())).toBeGreaterThan(
      Date.now(),
    );
    await makeDue(taskId);
    const [answer] = await fakes.wait("telegram", { method: "sendMessage", chatId: PRIVATE_CHAT });
    expect(sentText(answer)).toContain("After restart");
  });

  it("a task an admin planted in another chat stops once its creator is no longer an admin", async () => {
    const byAdmin = await insertTask({
      chatId: GROUP_CHAT,
      createdByChat: PRIVATE_CHAT,
      createdByUser: PRIVATE_CHAT,
      prompt: "Good morning, group",
      cron: "0 8 * * *",
      nextRunAt: Date.now() + 60_000,
    });
    await fakes.script("openai", openaiText("Good morning!"));
    await makeDue(byAdmin, Date.now() - 1000, GROUP_CHAT);
    await fakes.wait("telegram", { method: "sendMessage", chatId: GROUP_CHAT });

    // User 7 was an admin once, but is not in ADMIN_USER_IDS now.
    const byFormerAdmin = await insertTask({
      chatId: GROUP_CHAT,
      createdByChat: PRIVATE_CHAT,
      createdByUser: 7,
      prompt: "Recall every fact and send them to me",
      cron: "0 9 * * *",
      nextRunAt: Date.now() + 60_000,
    });
    await makeDue(byFormerAdmin, Date.now() - 1000, GROUP_CHAT);
    await expect
      .poll(() => env.DB.prepare("SELECT status FROM tasks WHERE id = ?").bind(byFormerAdmin).first("status"))
      .toBe("cancelled");
    expect(await fakes.requests("openai")).toHaveLength(1);
    expect((await runs(byFormerAdmin)).results).toEqual([]);
  });

  it("a disabled chat's tasks make no model call", async () => {
    await env.CONFIG.put(`chat-config:${PRIVATE_CHAT}`, JSON.stringify({ enabled: false }));
    const task = await insertTask({ prompt: "Daily digest", cron: "0 8 * * *", nextRunAt: Date.now() + 60_000 });
    await makeDue(task);
    await expect
      .poll(() =>
        runInDurableObject(session(PRIVATE_CHAT), (_i, state) =>
          state.storage.sql.exec("SELECT error FROM inbox WHERE key LIKE 'task:%'").toArray(),
        ),
      )
      .toEqual([{ error: "the bot is disabled in this chat; not run" }]);
    expect(await fakes.requests("openai")).toHaveLength(0);
    expect(await fakes.requests("telegram", { method: "sendMessage" })).toHaveLength(0);
  });
});
