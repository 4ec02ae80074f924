import type { PaidCallGate } from "../budget/paid-calls.ts";
import { bestEffort } from "../lib/best-effort.ts";
import { errorText } from "../lib/errors.ts";
import { redactSecrets } from "../lib/redact.ts";
import { type Speaker, SpeechError, type SpeechFailure, type SpokenAudio } from "../media/speech.ts";
import { detectLanguage, languageName } from "../media/speech-language.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";
import type { Delivery } from "./outbox.ts";
import { speakableText } from "./speakable.ts";

/** Where a spoken answer goes: the chat's outbox (an outage keeps it, or says it could not come). */
interface VoiceSender {
  postPlain(kind: "notice", target: ChatTarget, text: string): Promise<Delivery>;
  postVoice(
    target: ChatTarget,
    voice: { bytes: Uint8Array; fileName: string; caption?: string | undefined; replyTo?: number | undefined },
  ): Promise<Delivery>;
}

export interface VoiceReplyOptions {
  outbox: VoiceSender;
  target: ChatTarget;
  replyToMessageId?: number;
  /** The answer as it was delivered in text (Markdown). */
  answer: string;
  /** Who speaks, or why nobody can here. */
  speaker: Speaker | { unavailable: string };
  /** Speech is paid by the character: asked before, told after. */
  gate: PaidCallGate;
  /** The most characters spoken; a longer answer is spoken in part. */
  maxChars: number;
}

export type VoiceReplyOutcome =
  | { kind: "spoken"; characters: number; cut: boolean }
  | { kind: "not spoken"; why: string }
  | { kind: "nothing to say" };

/**
 * The spoken version of an answer, sent after its text (so nothing is only audible): the Markdown made speakable, in
 * the answer's language, cut at a sentence past `maxChars` with a caption saying so, priced and counted. Whatever
 * stops it (no speaker, a language its voices do not speak, the chat's allowance or budget, a failing service, a
 * refused upload) is told in one line; the text answer stands either way. Never throws.
 */
export async function sendVoiceReply(options: VoiceReplyOptions): Promise<VoiceReplyOutcome> {
  const { outbox, target, speaker, gate } = options;
  const notSpoken = async (why: string): Promise<VoiceReplyOutcome> => {
    await bestEffort("saying why an answer was not spoken", () => outbox.postPlain("notice", target, `🔇 ${why}`));
    return { kind: "not spoken", why };
  };
  const speakable = speakableText(options.answer, options.maxChars);
  if (speakable.text === "") return { kind: "nothing to say" };
  if ("unavailable" in speaker) return notSpoken(`Not spoken: ${speaker.unavailable}.`);
  const language = detectLanguage(speakable.text);
  if (language !== undefined && !speaker.speaks(language)) {
    return notSpoken(`Not spoken: ${speaker.label} has no ${languageName(language)} voice.`);
  }
  const characters = speakable.text.length;
  const refusal = gate.refusal("speech", characters);
  if (refusal !== undefined) return notSpoken(`Not spoken: ${refusal}`);

  let audio: SpokenAudio;
  try {
    audio = await speaker.speak(speakable.text, language);
  } catch (error) {
    console.warn(`speech failed: ${redactSecrets(errorText(error))}`);
    const failure: SpeechFailure = error instanceof SpeechError ? error.failure : "unavailable";
    return notSpoken(`The spoken version failed: ${FAILURES[failure]}. The answer is in the text above.`);
  }
  gate.record("speech", characters);
  const caption = speakable.cut
    ? `🔊 The first ${count(characters)} of ${count(speakable.fullLength)} characters, spoken; the whole answer is in the text above.`
    : undefined;
  let delivery: Delivery;
  try {
    delivery = await outbox.postVoice(target, {
      bytes: audio.bytes,
      fileName: audio.fileName,
      caption,
      replyTo: options.replyToMessageId,
    });
  } catch (error) {
    console.warn(`sending a voice reply failed: ${redactSecrets(errorText(error))}`);
    delivery = "refused";
  }
  if (delivery === "refused") {
    return notSpoken("The spoken version could not be sent: Telegram refused the voice message.");
  }
  return { kind: "spoken", characters, cut: speakable.cut };
}

const FAILURES: Record<SpeechFailure, string> = {
  "key refused": "the speech service refused the bot's key",
  "rate-limited": "the speech service is rate-limiting the bot right now",
  unreachable: "the speech service could not be reached",
  unavailable: "the speech service failed",
  timeout: "the speech service did not answer in time",
  refused: "the speech service refused the text",
  unreadable: "the speech service did not answer with audio",
};

function count(value: number): string {
  return value.toLocaleString("en-US");
}
