import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ChatAccess } from "../../../src/access/chat-access.ts";
import { spendSlot } from "../../../src/budget/spend-slot.ts";
import { resolveConfig } from "../../../src/config/chat-config.ts";
import { settingsOf } from "../../../src/config/loaded-settings.ts";
import type { ChatStores } from "../../../src/store/chat-stores.ts";
import { admit } from "../../../src/turn/admission.ts";
import type { InboxEntry } from "../../../src/turn/inbox-entries.ts";
import type { TurnRequest } from "../../../src/turn/turn-request.ts";
import { configProblemNoticeAtSlot } from "../../../src/turn/turn-slots.ts";
import { session } from "../../worker/helpers.ts";

const NOW = Date.UTC(2026, 10, 23, 12);
const chat = (kind: TurnRequest["kind"] = "chat", userId = 42): TurnRequest => ({
  kind,
  input: { kind: "ready", users: [{ role: "user", content: "hi" }] },
  inboxIds: [1],
  senders: [userId],
});

/** `admit` with a config that was stored valid (or not at all). */
const decide = (
  ctx: Parameters<typeof admit>[0],
  request: TurnRequest,
  config: ReturnType<typeof resolveConfig>,
  now: number,
) => admit(ctx, request, { effective: config, stored: { state: "none" } }, now);

/** The checks against a chat object's real stores, with the test environment's settings (admin user 1001). */
async function withStores<T>(work: (stores: ChatStores<InboxEntry>, access: ChatAccess) => T): Promise<T> {
  return runInDurableObject(session(7001), (instance) =>
    work(instance.stores, new ChatAccess(settingsOf(env), { chats: {}, admins: {} })),
  );
}

describe("admit", () => {
  it("fails closed on an invalid stored config, telling the chat once an hour", async () => {
    const config = resolveConfig(undefined, settingsOf(env));
    const [first, again] = await withStores((stores, access) => {
      const stored = { state: "invalid" as const, problem: "budget.dailyTokens" };
      const once = admit({ stores, access }, chat(), { effective: config, stored }, NOW);
      stores.meta.set(configProblemNoticeAtSlot, NOW);
      return [once, admit({ stores, access }, chat(), { effective: config, stored }, NOW + 60_000)];
    });
    expect(first).toMatchObject({ kind: "refused", reason: "config invalid" });
    expect(first.kind === "refused" && first.notice).toContain("settings are invalid (budget.dailyTokens)");
    expect(again).toMatchObject({ kind: "refused", reason: "config invalid", notice: undefined });
  });

  it("admits an enabled chat within its budget, with today's spend", async () => {
    const admission = await withStores((stores, access) =>
      decide({ stores, access }, chat(), resolveConfig(undefined, settingsOf(env)), NOW),
    );
    expect(admission).toEqual({
      kind: "admitted",
      spend: { day: "2026-11-23", tokens: 0, costUsd: 0, noticeSent: false },
    });
  });

  it("refuses a disabled chat, telling only an /agent request", async () => {
    const config = resolveConfig({ enabled: false }, settingsOf(env));
    const [message, agent] = await withStores((stores, access) => [
      decide({ stores, access }, chat("chat"), config, NOW),
      decide({ stores, access }, chat("agent", 1001), config, NOW),
    ]);
    expect(message).toEqual({ kind: "refused", reason: "disabled", notice: undefined });
    expect(agent).toMatchObject({ kind: "refused", reason: "disabled", notice: "⏸ The bot is disabled in this chat." });
  });

  it("lets an agent start only when every sender the turn answers is an admin", async () => {
    const settings = settingsOf(env);
    const mixed = await withStores((stores, access) =>
      decide(
        { stores, access },
        { ...chat("agent", 1001), senders: [42, 1001] },
        resolveConfig(undefined, settings),
        NOW,
      ),
    );
    expect(mixed).toMatchObject({ kind: "refused", reason: "not allowed" });
  });

  it("lets only admins start an agent unless the chat opens it to everyone", async () => {
    const settings = settingsOf(env);
    const [member, owner, everyone] = await withStores((stores, access) => [
      decide({ stores, access }, chat("agent", 42), resolveConfig(undefined, settings), NOW),
      decide({ stores, access }, chat("agent", 1001), resolveConfig(undefined, settings), NOW),
      decide({ stores, access }, chat("agent", 42), resolveConfig({ agentAccess: "everyone" }, settings), NOW),
    ]);
    expect(member).toMatchObject({ kind: "refused", reason: "not allowed" });
    expect(owner.kind).toBe("admitted");
    expect(everyone.kind).toBe("admitted");
  });

  it("refuses a chat past its budget, with the notice once a day", async () => {
    const config = resolveConfig({ budget: { dailyTokens: 100 } }, settingsOf(env));
    const [first, second] = await withStores((stores, access) => {
      stores.meta.set(spendSlot, { day: "2026-11-23", tokens: 150, costUsd: 0, noticeSent: false });
      const once = decide({ stores, access }, chat(), config, NOW);
      stores.meta.set(spendSlot, { day: "2026-11-23", tokens: 150, costUsd: 0, noticeSent: true });
      return [once, decide({ stores, access }, chat(), config, NOW)];
    });
    expect(first).toMatchObject({ kind: "refused", reason: "budget", spend: { noticeSent: true } });
    expect(first.kind === "refused" && first.notice).toContain("used today's budget (100 tokens)");
    expect(second).toMatchObject({ kind: "refused", reason: "budget", notice: undefined });
  });

  it("starts a new day's budget at midnight in the chat's time zone", async () => {
    const config = resolveConfig({ budget: { dailyTokens: 100 } }, settingsOf(env));
    const admission = await withStores((stores, access) => {
      stores.meta.set(spendSlot, { day: "2026-11-22", tokens: 150, costUsd: 0, noticeSent: true });
      return decide({ stores, access }, chat(), config, NOW);
    });
    expect(admission).toMatchObject({ kind: "admitted", spend: { day: "2026-11-23", tokens: 0 } });
  });
});
