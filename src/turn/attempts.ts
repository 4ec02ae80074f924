import { errorEventOf } from "../adapters/errors.ts";
import type { Adapter } from "../adapters/types.ts";
import { redactSecrets } from "../lib/redact.ts";
import type { AgentEvent } from "../protocol/events.ts";
import { TurnDisplay, type TurnDisplayOptions } from "../reply/turn-display.ts";
import type { TurnTrust } from "../tools/context.ts";
import type { ActiveRun } from "./active-run.ts";
import type { ChatContext } from "./chat-context.ts";
import { type ConversationInput, startConversation } from "./conversation.ts";
import { joinedWithoutFiles, withJoined } from "./joined-turn.ts";
import type { Tally } from "./tally.ts";
import type { AdmittedTurn } from "./turn-request.ts";
import { sessionSlotOf } from "./turn-slots.ts";

export interface AttemptsInput {
  conversation: ConversationInput;
  /** How the turn shows itself, answering these messages (the last one is acknowledged, and replied to in a group). */
  displayOptions: (turn: AdmittedTurn) => TurnDisplayOptions;
}

/** A conversation run to its end: the messages it answered, how it showed itself, and what it read. */
export interface Conversed {
  turn: AdmittedTurn;
  display: TurnDisplay;
  trust: TurnTrust;
}

/**
 * Runs the turn's conversation, showing what it does as it goes, until its model's last event. A message that joins
 * the turn while it has shown nothing (see Burst) aborts the model call under way: the call is dropped, its tokens
 * still counted (by an estimate of its input when the provider reported none), and the conversation starts over with
 * every message, once more than before; from the third message on, only once they stop coming (Burst.settle).
 */
export async function converse(ctx: ChatContext, input: AttemptsInput): Promise<Conversed> {
  const { conversation } = input;
  const { run, tally } = conversation;
  const told = new Set<string>();
  const dropped: Promise<void>[] = [];
  let turn = conversation.request;
  let typingShownAt: number | undefined;
  for (;;) {
    // A flood of messages settles first: one call for all of them, not one per message dropped by the next.
    await run.burst?.settle(run.signal);
    turn = await withJoined(ctx, turn, run, conversation.paid);
    // A turn nobody may join (a task, an agent's run) keeps the run's own signal.
    const signal = run.burst ? run.burst.beginAttempt(run.signal) : run.signal;
    const call = { made: false };
    const started = await startConversation(ctx, {
      ...conversation,
      request: turn,
      adapter: watched(conversation.adapter, signal, call),
      signal,
      told,
    });
    const counted = tally.tokens;
    // The model call goes out now; the display (its first Telegram call, and whether older messages wait in the
    // outbox) only once the answers before this turn are delivered (see ReplyTail), unless a message joins first.
    const events = begun(started.events);
    const shows = await afterEarlierAnswers(ctx, run, signal);
    const display = shows
      ? new TurnDisplay({
          ...input.displayOptions(turn),
          onShown: () => run.burst?.close(),
          // "typing…" from an attempt that started over still shows: not sent again at once.
          ...(typingShownAt === undefined ? {} : { typingShownAt }),
        })
      : undefined;
    if (display) await follow(ctx, events, { display, tally, run, provider: conversation.provider });
    else await dropEvents(events);
    if (!display || (run.burst?.hasWaiting && run.stopReason === undefined)) {
      if (call.made && tally.tokens === counted) countDropped(ctx, tally, started.estimatedInputTokens());
      tally.restart();
      // Nothing of it is on screen; typing and timers end while the next call starts.
      if (display) {
        typingShownAt = display.typingSentAt;
        dropped.push(display.discard());
      }
      continue;
    }
    run.burst?.close();
    await Promise.all(dropped);
    // Messages that joined just as the turn was stopped end with it, kept unanswered like its own.
    return { turn: joinedWithoutFiles(turn, run.burst?.take() ?? []), display, trust: started.trust };
  }
}

/** Feeds one attempt's events to the tally and the display, until its last one, or until a message joins the turn. */
async function follow(
  ctx: ChatContext,
  events: AsyncGenerator<AgentEvent>,
  turn: { display: TurnDisplay; tally: Tally; run: ActiveRun; provider: ConversationInput["provider"] },
): Promise<void> {
  const { display, tally, run, provider } = turn;
  try {
    for await (const event of events) {
      // A message joined: nothing more of this call is shown or kept (no tool runs), but its tokens count.
      if (run.burst?.interrupted && event.type !== "usage") return;
      const step = tally.apply(event);
      switch (step.kind) {
        case "text":
          display.text(step.text);
          break;
        case "tool":
          display.tool(step.label, step.starts);
          break;
        case "session":
          ctx.stores.meta.set(sessionSlotOf(provider), step.sessionId);
          break;
        case "log":
          console.log(`[${provider}] ${redactSecrets(step.message).slice(0, 500)}`);
          break;
        case "none":
        case "done":
          break;
      }
      if (tally.finished) return;
    }
  } catch (thrown) {
    if (!run.burst?.interrupted) tally.error = errorEventOf(thrown, provider);
  }
}

/**
 * Waits until the answers before this turn are delivered: true then. False when a message joins the turn first (its
 * attempt is aborted, and it starts over with the message at once); /stop does not end the wait.
 */
async function afterEarlierAnswers(ctx: ChatContext, run: ActiveRun, attempt: AbortSignal): Promise<boolean> {
  if (!ctx.replies.busy) return true;
  const joined = () => run.burst?.hasWaiting === true && run.stopReason === undefined;
  const aborted = new Promise<void>((resolve) => {
    if (attempt.aborted) resolve();
    else attempt.addEventListener("abort", () => resolve(), { once: true });
  });
  await Promise.race([ctx.replies.settled, aborted]);
  if (joined()) return false;
  await ctx.replies.settled;
  return true;
}

/** Ends the events of an attempt a message cut short before anything read them: its call's first step, then the loop. */
async function dropEvents(events: AsyncGenerator<AgentEvent>): Promise<void> {
  await events.next().catch(() => undefined);
  await events.return(undefined);
}

/**
 * The same events, their first one asked for now: the model call starts while the caller waits for something else.
 * A failure of that first step surfaces where the events are read (it is not left unhandled meanwhile).
 */
function begun(events: AsyncGenerator<AgentEvent>): AsyncGenerator<AgentEvent> {
  const first = events.next();
  first.catch(() => undefined);
  return (async function* () {
    try {
      const step = await first;
      if (step.done) return;
      yield step.value;
      yield* events;
    } finally {
      // Left early (a message joined, the answer is whole): the call is ended as the loop would have ended it.
      await events.return(undefined);
    }
  })();
}

/** A call cut short before the provider reported its usage: its input is counted by the window's estimate. */
function countDropped(ctx: ChatContext, tally: Tally, inputTokens: number): void {
  tally.apply({ type: "usage", inputTokens, outputTokens: 0 });
  console.log(
    `chat ${ctx.chat.id}: a model call was dropped for a message that joined the turn; ${inputTokens} input tokens counted (estimated)`,
  );
}

/** The adapter, noting whether a model call went out before the attempt was aborted (one aborted first costs nothing). */
function watched(adapter: Adapter, signal: AbortSignal, call: { made: boolean }): Adapter {
  if (adapter.kind === "agent") return adapter;
  const note = () => {
    if (!signal.aborted) call.made = true;
  };
  return {
    kind: "model",
    get label() {
      return adapter.label;
    },
    generate: (request) => {
      note();
      return adapter.generate(request);
    },
    stream: (request) => {
      note();
      return adapter.stream(request);
    },
  };
}
