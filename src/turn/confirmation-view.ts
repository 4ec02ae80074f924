import type { Keyboard } from "../telegram/client.ts";

/**
 * What a confirmation shows: the whole of what the press will run, never a preview. A held call's arguments are
 * shown in full (every text whole, in a code block so that a link is seen as written and cannot be tapped), the
 * destination by name, and a check of the stored arguments; a text longer than one message is shown a page at a time
 * with buttons to turn the pages. The press runs the stored arguments only if their hash is the one shown.
 */

/** Characters of the details per page: with the header, well within Telegram's 4,096. */
const PAGE_CHARS = 2_800;
/** At most this much of the details is kept to be shown (a send_message text is at most 20,000). */
const MAX_DETAIL_CHARS = 30_000;

/** A held call's arguments, with what the chat knows about the places they name. */
export interface HeldCallFacts {
  tool: string;
  args: Record<string, unknown>;
  /** The name of the chat `chatId` names, if known. */
  chatName?: string | undefined;
  /** The task `taskId` names, as it is now (its prompt and schedule), if it is found. */
  task?: { prompt: string; schedule: string } | undefined;
}

/** The held call's details as plain text: every argument whole, the destination by name, a task as it is now. */
export function detailOf(facts: HeldCallFacts): string {
  const lines: string[] = [`Tool: ${facts.tool}`];
  const changes = facts.task !== undefined || "taskId" in facts.args;
  for (const [key, value] of Object.entries(facts.args)) {
    if (key === "chatId" && typeof value === "number") {
      lines.push(`To: ${facts.chatName ? `${facts.chatName} (chat ${value})` : `chat ${value} (no name known)`}`);
    } else if (key === "taskId" && typeof value === "number") {
      lines.push(`Task: #${value}`);
      if (facts.task) {
        lines.push(`  now: ${facts.task.schedule}`, `  now its prompt: ${facts.task.prompt}`);
      } else {
        lines.push("  (not found in this chat)");
      }
    } else {
      const label = changes ? `${key} becomes` : key;
      const text = typeof value === "string" ? value : JSON.stringify(value);
      lines.push(text.includes("\n") || text.length > 60 ? `${label}:\n${text}` : `${label}: ${text}`);
    }
  }
  return lines.join("\n").slice(0, MAX_DETAIL_CHARS);
}

export function pageCount(detail: string): number {
  return Math.max(1, Math.ceil(detail.length / PAGE_CHARS));
}

/** Page `page` (from 0) of a confirmation: the header, the check, and that page of the details. */
export function confirmationPage(input: { header: string; detail: string; hash: string; page: number }): string {
  const pages = pageCount(input.detail);
  const page = Math.min(Math.max(0, input.page), pages - 1);
  const chunk = input.detail.slice(page * PAGE_CHARS, (page + 1) * PAGE_CHARS);
  const fence = "`".repeat(Math.max(3, longestBacktickRun(chunk) + 1));
  const where = pages === 1 ? "" : ` (page ${page + 1} of ${pages})`;
  return `${input.header}\n\nWhat will run${where}, check \`${input.hash.slice(0, 8)}\`:\n${fence}\n${chunk}\n${fence}`;
}

/** The buttons: confirm (carrying the hash of what is shown), decline, and the pages' arrows when there are several. */
export function confirmationKeyboard(input: { id: string; hash: string; page: number; pages: number }): Keyboard {
  const answer = [
    { text: "✅ Do it", data: `confirm:${input.id}:${input.hash}` },
    { text: "✖️ No", data: `decline:${input.id}` },
  ];
  if (input.pages <= 1) return [answer];
  const turn = [];
  if (input.page > 0)
    turn.push({ text: `◂ ${input.page}/${input.pages}`, data: `cpage:${input.id}:${input.page - 1}` });
  if (input.page < input.pages - 1) {
    turn.push({ text: `${input.page + 2}/${input.pages} ▸`, data: `cpage:${input.id}:${input.page + 1}` });
  }
  return [answer, turn];
}

/** The first 16 hex digits of the SHA-256 of the stored arguments: shown, carried by the button, checked at the press. */
export async function argumentsHash(argumentsText: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(argumentsText));
  return Array.from(new Uint8Array(digest).slice(0, 8), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}
