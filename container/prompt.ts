import type { HistoryMessage } from "../src/protocol/messages.ts";

/** How much earlier conversation a fresh session gets as context, and how much of any one message. */
export const MAX_TRANSCRIPT_CHARS = 24_000;
const MAX_TRANSCRIPT_MESSAGE_CHARS = 2_000;

/**
 * The prompt of one run. The Worker's `history` ends with the turn's new user message(s): those after the last
 * assistant message. A resumed session already holds everything before them, so it gets only the new messages. A
 * fresh session (first run, or a chat that switched to this provider) gets the earlier conversation as a short
 * transcript first, so the chat keeps its context.
 */
export function buildPrompt(history: readonly HistoryMessage[], resuming: boolean): string {
  const lastAssistant = history.findLastIndex((message) => message.role === "assistant");
  const fresh = history
    .slice(lastAssistant + 1)
    .flatMap((message) => (message.role === "user" ? [message.content] : []));
  const newText = fresh.length > 0 ? fresh.join("\n\n") : lastUserText(history);
  if (resuming) return newText;

  const transcript = transcriptOf(history.slice(0, lastAssistant + 1));
  return transcript === "" ? newText : `Conversation so far:\n${transcript}\n\nNew message:\n${newText}`;
}

function lastUserText(history: readonly HistoryMessage[]): string {
  const last = history.findLast((message) => message.role === "user");
  return last?.content ?? "Continue.";
}

/** `User:` / `Assistant:` lines, newest kept when the whole would exceed the bound; tool messages are skipped. */
function transcriptOf(earlier: readonly HistoryMessage[]): string {
  const lines: string[] = [];
  let size = 0;
  for (let index = earlier.length - 1; index >= 0; index--) {
    const message = earlier[index]!;
    if (message.role === "tool" || message.content.trim() === "") continue;
    const line = `${message.role === "user" ? "User" : "Assistant"}: ${clip(message.content.trim())}`;
    if (size + line.length + 1 > MAX_TRANSCRIPT_CHARS) {
      lines.push("[earlier messages left out]");
      break;
    }
    lines.push(line);
    size += line.length + 1;
  }
  return lines.reverse().join("\n");
}

function clip(text: string): string {
  return text.length <= MAX_TRANSCRIPT_MESSAGE_CHARS ? text : `${text.slice(0, MAX_TRANSCRIPT_MESSAGE_CHARS - 1)}…`;
}

/**
 * Codex invokes a skill (a `SKILL.md` it finds, also in the workspace, where an agent could have written one) when a
 * message names it as `$name` or `[$name](path)`. A chat's messages are not skill invocations: a word joiner after
 * each `$` that starts such a name keeps the text as people read it and matches no skill.
 */
export function withoutSkillMentions(text: string): string {
  // Every name character a Codex version has allowed (letters, digits, `_-:./`) follows no bare `$` any more.
  return text.replace(/\$(?=\S)/g, () => "$\u2060");
}
