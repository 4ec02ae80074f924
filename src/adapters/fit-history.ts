import { jsonBytes } from "../protocol/json-size.ts";
import type { HistoryMessage } from "../protocol/messages.ts";

/** Drops the oldest messages (keeping the window opening at a user message) until the payload fits the runner. */
export function fitHistory(
  history: readonly HistoryMessage[],
  { fixedBytes, maxBytes }: { fixedBytes: number; maxBytes: number },
): HistoryMessage[] {
  // Bytes as sent (UTF-8), not characters: Cyrillic, Chinese or emoji take two to four bytes each.
  const sizes = history.map((message) => jsonBytes(message) + 1);
  let start = 0;
  let size = fixedBytes + sizes.reduce((sum, bytes) => sum + bytes, 1);
  while (size > maxBytes && start < history.length - 1) {
    size -= sizes[start]!;
    start++;
    while (start < history.length - 1 && history[start]!.role !== "user") {
      size -= sizes[start]!;
      start++;
    }
  }
  return history.slice(start);
}
