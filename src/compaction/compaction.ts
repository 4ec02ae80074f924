import { providerErrorFrom } from "../adapters/errors.ts";
import { type AdapterSources, createAdapter } from "../adapters/index.ts";
import type { ModelAdapter } from "../adapters/types.ts";
import { addSpend, costOf, exhaustedLimit, spendOn } from "../budget/budget.ts";
import { spendSlot } from "../budget/spend-slot.ts";
import { type ConfigReader, effectiveConfigOf } from "../config/config-store.ts";
import { isModelProvider } from "../config/providers.ts";
import type { Settings } from "../config/settings.ts";
import { dayKey } from "../config/zones.ts";
import type { UsageRecord } from "../db/usage.ts";
import { redactSecrets } from "../lib/redact.ts";
import type { ChatStores } from "../store/chat-stores.ts";
import {
  planCompaction,
  SUMMARY_MAX_CHARS,
  SUMMARY_SYSTEM_PROMPT,
  summaryRequestText,
  tokensOfBytes,
} from "./summary.ts";
import { summaryFailureSlot, summarySlot } from "./summary-slots.ts";

/** What a summary pass works with: the chat's state and config, and what it takes to build its model's adapter. */
export interface CompactionContext {
  settings: Settings;
  adapters: AdapterSources;
  stores: ChatStores;
  configs: ConfigReader;
  chat: { id: number };
  now: () => number;
}

/** Summary passes one drain makes at most; a longer backlog is folded after later turns. */
const MAX_PASSES = 4;

/**
 * Folds the older part of the conversation into the chat's rolling summary when the history no longer fits the
 * window. Runs after a drain's answers are sent, so nobody waits for it. The summary is written by the chat's own
 * model (the provider-neutral text survives a provider switch); a failure is recorded and tried again after the
 * next turn, and never throws: the window alone is used meanwhile.
 */
export async function compactIfDue(ctx: CompactionContext, signal?: AbortSignal): Promise<void> {
  const { stores, settings } = ctx;
  const limits = { windowTokens: settings.historyWindowTokens, windowMessages: settings.historyLimit };
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    if (signal?.aborted) return;
    const summary = stores.meta.get(summarySlot);
    const afterId = summary?.throughId ?? 0;
    // Most drains end here, without reading the rows: their count and size say they fit.
    const totals = stores.history.totalsAfter(afterId);
    if (totals.count <= limits.windowMessages && tokensOfBytes(totals.bytes, totals.count) <= limits.windowTokens)
      return;
    // A pass folds at most two windows from the oldest rows and keeps the newest half window: with a long backlog
    // (a chat whose passes keep being stopped by new messages) only its oldest rows are read, not all of it.
    const slice = limits.windowMessages * 4;
    const rows = stores.history.after(afterId, totals.count > slice + limits.windowMessages ? slice : undefined);
    const plan = planCompaction(rows, limits);
    if (!plan) return;
    // A backlog near the stored limit is folded even if a message is waiting, so that pruning never drops rows the
    // summary has not read; otherwise the next message stops this pass, and it runs again after that turn.
    const urgent = totals.count >= settings.historyMaxStored / 2;
    const { config, stored } = await effectiveConfigOf(ctx.configs, ctx.chat.id, settings);
    // An invalid stored config fails closed: no model call until it is fixed.
    if (stored.state === "invalid") return;
    const started = ctx.now();
    const spend = spendOn(dayKey(started, config.timezone), stores.meta.get(spendSlot));
    // A disabled chat, or one over its budget, gets no model call of any kind.
    if (!config.enabled || exhaustedLimit(spend, config.budget) !== undefined) return;
    const summariser = summariserOf(ctx, config.provider);
    if (!summariser) return;
    const model = config.model;
    try {
      const response = await summariser.generate({
        model,
        system: SUMMARY_SYSTEM_PROMPT,
        messages: [
          {
            role: "user",
            content: summaryRequestText(
              summary?.text,
              plan.rows.map((row) => row.message),
            ),
          },
        ],
        tools: [],
        ...(signal && !urgent ? { signal } : {}),
      });
      const text = response.message.content.trim().slice(0, SUMMARY_MAX_CHARS);
      if (text === "") throw new Error("the model wrote an empty summary");
      const finished = ctx.now();
      const usage = response.usage ?? { inputTokens: 0, outputTokens: 0 };
      const price = settings.modelPrices.get(model);
      const record: UsageRecord = {
        chatId: ctx.chat.id,
        kind: "summary",
        provider: config.provider,
        model,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        toolCalls: 0,
        durationMs: finished - started,
        outcome: "ok",
        costUsd: price === undefined ? null : costOf(usage, price),
        createdAt: finished,
      };
      stores.atomically(() => {
        // Provenance survives the fold: a summary of marked messages is marked (and stays so until /new).
        const outside = summary?.outside ?? plan.rows.find((row) => row.message.outside !== undefined)?.message.outside;
        stores.meta.set(summarySlot, {
          text,
          throughId: plan.rows.at(-1)!.id,
          messages: (summary?.messages ?? 0) + plan.rows.length,
          updatedAt: finished,
          ...(outside === undefined ? {} : { outside }),
        });
        stores.meta.delete(summaryFailureSlot);
        stores.usage.add(record, finished);
        stores.meta.set(spendSlot, addSpend(spend, usage, record.costUsd ?? 0));
      });
    } catch (error) {
      if (signal?.aborted && !urgent) return;
      const reason = redactSecrets(providerErrorFrom(error, summariser.label).message).slice(0, 300);
      console.warn(`chat ${ctx.chat.id}: summary failed, the window alone is used for now: ${reason}`);
      stores.meta.set(summaryFailureSlot, { at: ctx.now(), reason });
      return;
    }
  }
}

/**
 * The chat's model as a one-call adapter. A `claude-agent` chat's model is a Claude model, summarised through the
 * Anthropic API when its key is set, a `codex-agent` chat's through the OpenAI API; without a usable adapter there
 * is no summary (the window alone is used).
 */
function summariserOf(ctx: CompactionContext, provider: string): ModelAdapter | undefined {
  const name = provider === "claude-agent" ? "anthropic" : provider === "codex-agent" ? "openai" : provider;
  if (!isModelProvider(name)) return undefined;
  const choice = createAdapter(name, ctx.adapters);
  return choice.kind === "ready" && choice.adapter.kind === "model" ? choice.adapter : undefined;
}
