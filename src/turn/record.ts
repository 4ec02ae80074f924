import { addSpend, latestSpend } from "../budget/budget.ts";
import { addUnits } from "../budget/paid-calls.ts";
import { type DailySpend, spendSlot } from "../budget/spend-slot.ts";
import type { PaidUnits } from "../config/paid-kinds.ts";
import type { UsageRecord } from "../db/usage.ts";
import { redactSecrets } from "../lib/redact.ts";
import type { AgentErrorEvent } from "../protocol/events.ts";
import type { HistoryMessage } from "../protocol/messages.ts";
import type { ChatContext } from "./chat-context.ts";
import type { Tally } from "./tally.ts";
import type { AdmittedTurn, TurnRequest } from "./turn-request.ts";

/** Why a turn's inbox rows failed although it answered: Telegram refused the answer for good. */
const UNDELIVERED = "the answer could not be delivered to Telegram";

/** What recording a turn needs: the chat's stores, how many rows it keeps, and the clock. */
type RecordContext = Pick<ChatContext, "stores" | "settings" | "chat" | "now">;

/** How a turn ended, for the record: its answer (and whether Telegram has all of it), or its error. */
export type TurnEnd =
  | { kind: "answered"; text: string; delivered: boolean }
  /** The model declined or its provider filtered the answer: the person was told, and history keeps none of it. */
  | { kind: "withheld"; delivered: boolean }
  | { kind: "failed"; error: AgentErrorEvent };

/** What a turn that reached its model cost: the tally of its events, against the day's spend it started from. */
export interface TurnCost {
  tally: Tally;
  /** Paid calls besides tokens (images, searches, speech, audio): their units and cost. */
  paid: { units: PaidUnits; costUsd: number };
  spend: DailySpend;
  started: number;
  /** Provenance: what the turn read from outside the chat, if anything; its messages are stored with the mark. */
  outside: string | undefined;
}

/**
 * The one place a turn is written down, answered or failed: history, the inbox rows, the usage record and the day's
 * spend, in one transaction. A failed turn keeps the user's messages, never an error text as if the assistant had
 * said it, nor half a tool exchange. A turn that failed before any model call (no adapter) has no cost to record.
 */
export function recordTurn(ctx: RecordContext, request: AdmittedTurn, end: TurnEnd, cost: TurnCost | undefined): void {
  const { stores, settings } = ctx;
  const now = ctx.now();
  const usage = cost === undefined ? undefined : usageRecord(ctx, request, { ...cost, end, now });
  stores.atomically(() => {
    switch (end.kind) {
      case "answered":
        stores.history.append(
          [
            ...request.users,
            ...marked(cost?.tally.produced ?? [], cost?.outside),
            ...marked([{ role: "assistant", content: end.text }], cost?.outside),
          ],
          now,
        );
        stores.inbox.finish(request.inboxIds, now, end.delivered ? undefined : UNDELIVERED);
        break;
      case "withheld":
        stores.inbox.finish(request.inboxIds, now, end.delivered ? undefined : UNDELIVERED);
        break;
      case "failed":
        stores.history.append(request.users, now);
        stores.inbox.finish(
          request.inboxIds,
          now,
          `${end.error.classification}: ${redactSecrets(end.error.message).slice(0, 300)}`,
        );
        break;
    }
    stores.history.prune(settings.historyMaxStored);
    if (cost && usage) {
      stores.usage.add(usage, now);
      // Added to the day's spend as stored now: a helper started during the turn holds its slice there.
      const spend = latestSpend(cost.spend, stores.meta.get(spendSlot));
      stores.meta.set(spendSlot, addUnits(addSpend(spend, cost.tally.usage, usage.costUsd ?? 0), cost.paid.units));
    }
  });
}

/**
 * A turn recorded as delivered whose delivery then failed (see answer-handover.ts): its inbox rows say so, as they
 * would have had it been recorded after; history keeps the answer either way, as recordTurn does.
 */
export function recordUndelivered(ctx: RecordContext, inboxIds: readonly number[], reason = UNDELIVERED): void {
  ctx.stores.inbox.finish(inboxIds, ctx.now(), reason);
}

/** What a turn wrote after reading outside content carries the mark, so the next turns know what their window holds. */
function marked(messages: readonly HistoryMessage[], outside: string | undefined): HistoryMessage[] {
  return outside === undefined
    ? [...messages]
    : messages.map((message) => ({ ...message, outside: message.outside ?? outside }));
}

/**
 * A guest turn (a question from another chat): only its usage and the day's spend are kept, nothing of the chat it
 * came from. Its inbox row ends and is emptied (the key stays, so a redelivered update is still a no-op).
 */
export function recordGuestTurn(
  ctx: RecordContext,
  request: TurnRequest,
  end: TurnEnd,
  cost: TurnCost | undefined,
): void {
  const { stores } = ctx;
  const now = ctx.now();
  const usage = cost === undefined ? undefined : usageRecord(ctx, request, { ...cost, end, now });
  const error =
    end.kind === "failed"
      ? `${end.error.classification}: ${redactSecrets(end.error.message).slice(0, 300)}`
      : end.delivered
        ? undefined
        : UNDELIVERED;
  stores.atomically(() => {
    stores.inbox.finish(request.inboxIds, now, error);
    stores.inbox.erase(request.inboxIds);
    if (cost && usage) {
      stores.usage.add(usage, now);
      stores.meta.set(spendSlot, addUnits(addSpend(cost.spend, cost.tally.usage, usage.costUsd ?? 0), cost.paid.units));
    }
  });
}

function usageRecord(
  ctx: RecordContext,
  request: Pick<TurnRequest, "kind">,
  turn: TurnCost & { end: TurnEnd; now: number },
): UsageRecord {
  const { tally } = turn;
  return {
    chatId: ctx.chat.id,
    kind: request.kind,
    provider: tally.answeredBy.provider,
    model: tally.answeredBy.model,
    inputTokens: tally.usage.inputTokens,
    outputTokens: tally.usage.outputTokens,
    toolCalls: tally.toolCalls,
    durationMs: turn.now - turn.started,
    outcome: turn.end.kind === "failed" ? "error" : "ok",
    // Unknown when nothing had a price; paid calls always have one.
    costUsd: tally.cost === null && turn.paid.costUsd === 0 ? null : (tally.cost ?? 0) + turn.paid.costUsd,
    ...(Object.keys(turn.paid.units).length > 0 ? { paidUnits: turn.paid.units } : {}),
    createdAt: turn.now,
  };
}
