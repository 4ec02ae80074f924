import type { PaidCallGate } from "../budget/paid-calls.ts";
import type { EffectiveConfig } from "../config/chat-config.ts";
import { bestEffort } from "../lib/best-effort.ts";
import { sendVoiceReply } from "../reply/voice-reply.ts";
import type { ChatContext } from "./chat-context.ts";
import type { TurnRequest } from "./turn-request.ts";

/**
 * After a chat turn's answer is delivered as text: its spoken version too, where the chat's `voiceReplies` asks for
 * it (`always`, or `when-spoken-to` and the turn answers a voice or video note). Scheduled tasks and `/agent` runs
 * are not spoken. Before the turn is recorded, so that the speech's characters are counted with the turn.
 */
export async function speakAnswer(
  ctx: ChatContext,
  turn: { request: TurnRequest; config: EffectiveConfig; paid: PaidCallGate; text: string },
): Promise<void> {
  const { request, config } = turn;
  if (!speaks(request, config)) return;
  const speaker = ctx.speaker();
  await bestEffort("speaking an answer", () =>
    sendVoiceReply({
      outbox: ctx.outbox,
      target: ctx.target,
      ...(request.replyToMessageId === undefined ? {} : { replyToMessageId: request.replyToMessageId }),
      answer: turn.text,
      speaker,
      gate: turn.paid,
      maxChars: ctx.settings.speech.maxChars,
    }),
  );
}

/** Whether a turn's answer is spoken too (a chat turn, where the chat's `voiceReplies` asks for it). */
export function speaks(request: TurnRequest, config: Pick<EffectiveConfig, "voiceReplies">): boolean {
  return request.kind === "chat" && wantsVoice(config.voiceReplies, request.spokenTo === true);
}

function wantsVoice(mode: EffectiveConfig["voiceReplies"], spokenTo: boolean): boolean {
  switch (mode) {
    case "off":
      return false;
    case "when-spoken-to":
      return spokenTo;
    case "always":
      return true;
  }
}
