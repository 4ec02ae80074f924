import type { PaidCallGate } from "../budget/paid-calls.ts";
import type { UserMessage } from "../protocol/messages.ts";
import type { IncomingMessage } from "../telegram/incoming-message.ts";
import type { ActiveRun } from "./active-run.ts";
import type { JoinedMessage } from "./burst.ts";
import type { ChatContext } from "./chat-context.ts";
import { isSpokenTo, usersOf, usersWithoutFiles } from "./incoming-files.ts";
import type { AdmittedTurn, TurnRequest } from "./turn-request.ts";

/**
 * Whom a chat turn answering these Telegram messages answers: their senders, and the last message, which is
 * acknowledged (and replied to, in a group); a voice note among them asks for a spoken answer where the chat wants one.
 */
export function answering(
  messages: readonly IncomingMessage[],
): Pick<TurnRequest, "senders" | "messageId" | "replyToMessageId" | "spokenTo"> {
  const last = messages.at(-1);
  return {
    senders: [...new Set(messages.flatMap((message) => (message.from ? [message.from.id] : [])))],
    ...(last === undefined ? {} : { messageId: last.messageId }),
    ...(last === undefined || last.chat.type === "private" ? {} : { replyToMessageId: last.messageId }),
    ...(isSpokenTo(messages) ? { spokenTo: true } : {}),
  };
}

/**
 * The request with messages that joined it, after its own: their inbox rows end with the turn's, their senders are
 * among those it answers (it acts as the least privileged of them), and the last of them is the message answered.
 */
function withLate<T extends TurnRequest>(request: T, joined: readonly JoinedMessage[]): T {
  if (joined.length === 0) return request;
  const own = request.input.kind === "telegram" ? request.input.messages : [];
  const messages = [...own, ...joined.map(({ message }) => message)];
  const about = answering(messages);
  return {
    ...request,
    ...about,
    senders: [...new Set([...request.senders, ...about.senders])],
    input: { kind: "telegram", messages },
    inboxIds: [...request.inboxIds, ...joined.map(({ inboxId }) => inboxId)],
  };
}

/** An admitted turn with messages that joined it (see withLate), and what the model gets of them. */
export function joinedTurn(
  turn: AdmittedTurn,
  joined: readonly JoinedMessage[],
  users: readonly UserMessage[],
): AdmittedTurn {
  if (joined.length === 0) return turn;
  return { ...withLate(turn, joined), users: [...turn.users, ...users] };
}

/**
 * A turn that ends before its model call (refused, or no model to answer): nothing more may join it, and what joined
 * already ends with it.
 */
export function closedRequest(request: TurnRequest, run: ActiveRun): TurnRequest {
  run.burst?.close();
  return withLate(request, run.burst?.take() ?? []);
}

/**
 * The turn with every message that has joined it so far, their files brought in (paid as the turn's own): more may
 * join while files download, and are taken too.
 */
export async function withJoined(
  ctx: ChatContext,
  turn: AdmittedTurn,
  run: ActiveRun,
  paid: PaidCallGate,
): Promise<AdmittedTurn> {
  let joined = turn;
  while (run.burst?.hasWaiting) {
    const late = run.burst.take();
    const users = await usersOf(ctx, { kind: "telegram", messages: late.map(({ message }) => message) }, paid);
    joined = joinedTurn(joined, late, users);
  }
  return joined;
}

/** Messages that joined a turn just before it was stopped: kept with it, their files not brought in. */
export function joinedWithoutFiles(turn: AdmittedTurn, late: readonly JoinedMessage[]): AdmittedTurn {
  const messages = late.map(({ message }) => message);
  return joinedTurn(turn, late, usersWithoutFiles({ kind: "telegram", messages }));
}
