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
import { memoryConsolidatedSlot } from "../memory/memory-slots.ts";
import type { CompactionContext } from "./compaction.ts";

/** A person's memory is consolidated at most this often, unless it is over its cap. */
const EVERY_MS = 24 * 60 * 60 * 1000;
/** New facts since the last consolidation that make one due (with the interval past). */
const NEW_FACTS = 4;
/** How often a private chat's object looks at its person's memory at all (a D1 read). */
const CHECK_EVERY_MS = 60 * 60 * 1000;
/** The most facts one call reads. */
const READ_AT_MOST = 200;

/**
 * Consolidation of a person's memory, on a schedule: after a drain of their private chat, when their facts have grown
 * past PERSON_MEMORY_MAX_CHARS, or a day has passed and a few facts were added. The chat provider's cheap model
 * (src/config/model-catalog.ts) merges facts that repeat or contradict each other (the newest truth kept, with where
 * it came from); the call is priced and counted against the chat's daily budget like a summary, and a disabled or
 * spent chat makes none. Never throws: a failure waits for the next day.
 */
export async function consolidateIfDue(
  ctx: CompactionContext & { db: DrizzleD1Database; chat: { id: number; type: string } },
  signal?: AbortSignal,
): Promise<void> {
  if (ctx.chat.type !== "private" || signal?.aborted) return;
  const person = ctx.chat.id;
  const { stores, settings } = ctx;
  const last = stores.meta.get(memoryConsolidatedSlot);
  const now = ctx.now();
  if (last?.checkedAt !== undefined && now - last.checkedAt < CHECK_EVERY_MS) return;
  stores.meta.set(memoryConsolidatedSlot, { at: last?.at ?? 0, facts: last?.facts ?? 0, checkedAt: now });
  const memories = new MemoryRepository(ctx.db);
  const facts = (await memories.aboutPerson(person)).slice(0, READ_AT_MOST);
  const chars = facts.reduce((sum, fact) => sum + fact.content.length, 0);
  const overCap = chars > settings.personMemoryMaxChars;
  const grown = facts.length - (last?.facts ?? 0) >= NEW_FACTS && now - (last?.at ?? 0) >= EVERY_MS;
  if (facts.length < 2 || !(overCap || grown)) return;

  const { config, stored } = await effectiveConfigOf(ctx.configs, person, settings);
  if (stored.state === "invalid" || !config.enabled) return;
  const spend = spendOn(dayKey(now, config.timezone), stores.meta.get(spendSlot));
  if (exhaustedLimit(spend, config.budget) !== undefined) return;
  const provider = cheapProviderOf(config.provider);
  if (!provider) return;
  const choice = createAdapter(provider, ctx.adapters);
  if (choice.kind !== "ready" || choice.adapter.kind !== "model") return;
  const model = MODEL_CATALOG[provider].cheap;
  // Tried once a day at most, whatever the outcome.
  stores.meta.set(memoryConsolidatedSlot, { at: now, facts: facts.length, checkedAt: now });
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
      chatId: person,
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
    stores.meta.set(memoryConsolidatedSlot, {
      at: finished,
      facts: await memories.countAbout(person),
      checkedAt: finished,
    });
  } catch (error) {
    const reason = redactSecrets(providerErrorFrom(error, choice.adapter.label).message).slice(0, 300);
    console.warn(`chat ${person}: consolidating the person's memory failed; tried again tomorrow: ${reason}`);
  }
}

/** The provider whose cheap model consolidates: the chat's own, an agent's API (Claude's or OpenAI's). */
function cheapProviderOf(provider: string): ModelProvider | undefined {
  const name = provider === "claude-agent" ? "anthropic" : provider === "codex-agent" ? "openai" : provider;
  return isModelProvider(name) ? name : undefined;
}
