import type { DrizzleD1Database } from "drizzle-orm/d1";
import { providerErrorFrom } from "../adapters/errors.ts";
import { createAdapter } from "../adapters/index.ts";
import { addSpend, costOf, exhaustedLimit, spendOn } from "../budget/budget.ts";
import { spendSlot } from "../budget/spend-slot.ts";
import { effectiveConfigOf } from "../config/config-store.ts";
import { MODEL_CATALOG } from "../config/model-catalog.ts";
import { isModelProvider, type ModelProvider } from "../config/providers.ts";
import { dayKey } from "../config/zones.ts";
import type { UsageRecord } from "../db/usage.ts";
import { redactSecrets } from "../lib/redact.ts";
import { CONSOLIDATION_SYSTEM_PROMPT, consolidationPlan, consolidationRequest } from "../memory/consolidation.ts";
import { MemoryRepository } from "../memory/memory-repository.ts";
import { memoryChangedSlot, memoryConsolidatedSlot, personFactsNoneSlot } from "../memory/memory-slots.ts";
import type { ChatStores } from "../store/chat-stores.ts";
import type { CompactionContext } from "./compaction.ts";

/** A person's memory is consolidated at most this often, unless it is over its cap. */
const EVERY_MS = 24 * 60 * 60 * 1000;
/** New facts since the last consolidation that make one due (with the interval past). */
const NEW_FACTS = 4;
/** The most facts one call reads, and the people one drain looks at. */
const READ_AT_MOST = 200;
const PEOPLE_PER_DRAIN = 3;
/** The people whose consolidation times a chat keeps. */
const KEPT_PEOPLE = 50;

/** A turn's `remember` of a person's fact: that person is looked at after the drain (no D1 read until then). */
export function markMemoryChanged(stores: ChatStores, person: number): void {
  stores.meta.delete(personFactsNoneSlot);
  const changed = stores.meta.get(memoryChangedSlot) ?? [];
  if (!changed.includes(person)) stores.meta.set(memoryChangedSlot, [...changed, person].slice(-50));
}

type ConsolidationContext = CompactionContext & { db: DrizzleD1Database };

/**
 * Consolidation of people's memories, on a schedule: after a drain in which a turn wrote a person's fact, that
 * person's facts are consolidated when they have grown past PERSON_MEMORY_MAX_CHARS, or a day has passed since the
 * last time and a few facts were added. The chat provider's cheap model (src/config/model-catalog.ts) merges facts
 * that repeat or contradict each other (the newest truth kept, with where it came from); the call is priced and
 * counted against this chat's daily budget like a summary, and a disabled or spent chat makes none. A drain that wrote
 * no person's fact costs nothing here. Never throws: a failure waits for the next change.
 */
export async function consolidateIfDue(ctx: ConsolidationContext, signal?: AbortSignal): Promise<void> {
  const { stores } = ctx;
  const changed = stores.meta.get(memoryChangedSlot);
  if (!changed || changed.length === 0) return;
  stores.meta.delete(memoryChangedSlot);
  for (const person of changed.slice(0, PEOPLE_PER_DRAIN)) {
    if (signal?.aborted) return;
    await consolidatePerson(ctx, person, signal);
  }
}

async function consolidatePerson(ctx: ConsolidationContext, person: number, signal?: AbortSignal): Promise<void> {
  const { stores, settings } = ctx;
  const memories = new MemoryRepository(ctx.db);
  const facts = (await memories.aboutPerson(person)).slice(0, READ_AT_MOST);
  const chars = facts.reduce((sum, fact) => sum + fact.content.length, 0);
  const last = stores.meta.get(memoryConsolidatedSlot)?.[String(person)];
  const now = ctx.now();
  const overCap = chars > settings.personMemoryMaxChars;
  const grown = facts.length - (last?.facts ?? 0) >= NEW_FACTS && now - (last?.at ?? 0) >= EVERY_MS;
  if (facts.length < 2 || !(overCap || grown)) return;

  const { config, stored } = await effectiveConfigOf(ctx.configs, ctx.chat.id, settings);
  if (stored.state === "invalid" || !config.enabled) return;
  const spend = spendOn(dayKey(now, config.timezone), stores.meta.get(spendSlot));
  if (exhaustedLimit(spend, config.budget) !== undefined) return;
  const provider = cheapProviderOf(config.provider);
  if (!provider) return;
  const choice = createAdapter(provider, ctx.adapters);
  if (choice.kind !== "ready" || choice.adapter.kind !== "model") return;
  const model = MODEL_CATALOG[provider].cheap;
  // Tried once per interval at most, whatever the outcome.
  recordConsolidated(stores, person, { at: now, facts: facts.length });
  try {
    const response = await choice.adapter.generate({
      model,
      system: CONSOLIDATION_SYSTEM_PROMPT,
      messages: [{ role: "user", content: consolidationRequest(facts) }],
      tools: [],
      ...(signal ? { signal } : {}),
    });
    const finished = ctx.now();
    const usage = response.usage ?? { inputTokens: 0, outputTokens: 0 };
    const price = settings.modelPrices.get(model);
    const record: UsageRecord = {
      chatId: ctx.chat.id,
      kind: "summary",
      provider,
      model,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      toolCalls: 0,
      durationMs: finished - now,
      outcome: "ok",
      costUsd: price === undefined ? null : costOf(usage, price),
      createdAt: finished,
    };
    stores.atomically(() => {
      stores.usage.add(record, finished);
      stores.meta.set(spendSlot, addSpend(spend, usage, record.costUsd ?? 0));
    });
    const plan = consolidationPlan(response.message.content, facts, finished);
    if (!plan) throw new Error("the model's answer was not the JSON asked for");
    await memories.replace(plan.replaced, plan.merged);
    recordConsolidated(stores, person, { at: finished, facts: await memories.countAbout(person) });
  } catch (error) {
    const reason = redactSecrets(providerErrorFrom(error, choice.adapter.label).message).slice(0, 300);
    console.warn(`chat ${ctx.chat.id}: consolidating a person's memory failed; tried again later: ${reason}`);
  }
}

function recordConsolidated(stores: ChatStores, person: number, entry: { at: number; facts: number }): void {
  const all = { ...(stores.meta.get(memoryConsolidatedSlot) ?? {}), [String(person)]: entry };
  const newest = Object.entries(all)
    .sort(([, a], [, b]) => b.at - a.at)
    .slice(0, KEPT_PEOPLE);
  stores.meta.set(memoryConsolidatedSlot, Object.fromEntries(newest));
}

/** The provider whose cheap model consolidates: the chat's own, an agent's API (Claude's or OpenAI's). */
function cheapProviderOf(provider: string): ModelProvider | undefined {
  const name = provider === "claude-agent" ? "anthropic" : provider === "codex-agent" ? "openai" : provider;
  return isModelProvider(name) ? name : undefined;
}
