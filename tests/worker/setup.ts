import {
  abortAllDurableObjects,
  applyD1Migrations,
  listDurableObjectIds,
  reset,
  runInDurableObject,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach } from "vitest";
import { AccessStore } from "../../src/access/access-store.ts";
import { forgetLoadedSettings } from "../../src/config/loaded-settings.ts";
import { listingCache } from "../../src/mcp/listing-cache.ts";
import { dropSkillDirectories } from "../../src/skills/skill-directory.ts";
import { forgetBotIdentities } from "../../src/telegram/bot-identity.ts";
import { forgetPressRoutes } from "../../src/telegram/press-routes.ts";
import type { TelegramReport } from "../fakes/server.ts";

/**
 * Every test starts from empty storage (D1, KV, Durable Objects), fakes with no scripts, and none of the isolate's
 * memory of what storage or the fakes said (access, settings, the bot's identity, MCP servers' tools): a runner's
 * files run one after another in one workerd (`isolate: false` in vitest.config.ts), so that memory would otherwise
 * outlive a file too. One thing does outlive a test: the runtime keeps listing a Durable Object's id
 * (`listDurableObjectIds`) once an earlier test in the same workerd made that object, its storage wiped or not; a test
 * that no object is made uses an id of its own.
 */
beforeEach(async () => {
  // reset() leaves a D1 database as it was when the runtime's object behind it has gone idle (a long test with no D1
  // call for some seconds: tests/worker/subrequest-limits.test.ts): the next test then read the rows the one before
  // wrote. A query first wakes it, and the check after says so plainly should reset() ever leave it again.
  await env.DB.prepare("SELECT 1").first();
  await reset();
  await d1IsEmpty();
  AccessStore.forgetCached();
  forgetLoadedSettings();
  forgetBotIdentities();
  forgetPressRoutes();
  dropSkillDirectories();
  listingCache.clear();
  await abortAllDurableObjects();
  await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
  await fetch(`${env.FAKES_URL}/__control/reset`, { method: "POST" });
});

/** Fails the test when reset() left tables in D1 (see beforeEach). */
async function d1IsEmpty(): Promise<void> {
  const { results } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\'",
  ).all<{ name: string }>();
  if (results.length > 0) {
    throw new Error(`reset() left D1 as it was: ${results.map((row) => row.name).join(", ")}`);
  }
}

/**
 * A test ends when it has seen what it waits for (an answer in the fake Telegram), while a chat's object may still
 * be finishing its turn (writing history and usage). Let every object settle before the next test wipes storage:
 * wait for a running alarm, and for an alarm that is due to start.
 */
afterEach(async () => {
  // Background helpers first: a helper that reports wakes its chat.
  for (const id of await listDurableObjectIds(env.HELPER_SESSION)) {
    for (let round = 0; round < 100; round++) {
      const busy = await runInDurableObject(env.HELPER_SESSION.get(id), async (instance, state) => {
        if (instance.work) {
          await instance.work.catch(() => undefined);
          instance.work = undefined;
          return true;
        }
        const alarm = await state.storage.getAlarm();
        return alarm !== null && alarm <= Date.now() + 50;
      });
      if (!busy) break;
      await scheduler.wait(5);
    }
  }
  for (const id of await listDurableObjectIds(env.CHAT_SESSION)) {
    for (let round = 0; round < 100; round++) {
      const busy = await runInDurableObject(env.CHAT_SESSION.get(id), async (instance, state) => {
        const running = instance.schedule.drain;
        if (running) {
          await running.catch(() => undefined);
          return true;
        }
        const alarm = await state.storage.getAlarm();
        return alarm !== null && alarm <= Date.now() + 50;
      });
      if (!busy) break;
      await scheduler.wait(5);
    }
  }
  // A method or field Telegram does not know fails the test that sent it (Telegram would answer 404, or silently
  // ignore the field).
  const report = (await (await fetch(`${env.FAKES_URL}/__control/telegram`)).json()) as TelegramReport;
  if (report.violations.length > 0) {
    throw new Error(
      `the bot called Telegram with what the Bot API does not know:\n${report.violations.map((violation) => `  ${violation.text}`).join("\n")}`,
    );
  }
});
