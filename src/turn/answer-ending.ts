import type { FinishReason } from "../protocol/events.ts";
import { finishNote } from "../reply/finish-note.ts";

/** What a turn's answer becomes: the text the person is shown, and the text history keeps (none: nothing is kept). */
export interface AnswerEnding {
  shown: string;
  kept: string | undefined;
}

/**
 * The answer as it ended. A normal end is shown and kept as it is ("…" for an empty one). A cut answer is shown with
 * a sentence saying so, and kept without it (the sentence is not the model's). A refused or filtered answer is shown
 * as the sentence alone (what came before the refusal was withheld) and nothing of the exchange is kept: Anthropic's
 * docs say a conversation that goes on with the refused turn in it is refused again.
 */
export function answerEnding(result: string, finish: FinishReason | undefined): AnswerEnding {
  const note = finishNote(finish);
  if (finish?.kind === "refusal" || finish?.kind === "content_filter") return { shown: note ?? "…", kept: undefined };
  const text = result.trim() === "" ? "" : result;
  if (note === undefined) return { shown: text || "…", kept: text || "…" };
  return { shown: text ? `${text}\n\n_${note}_` : note, kept: text || "…" };
}
