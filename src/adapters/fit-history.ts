import type { HistoryMessage } from "../protocol/messages.ts";

/** Drops the oldest messages (keeping the window opening at a user message) until the payload fits the runner. */
export function fitHistory(
  history: readonly HistoryMessage[],
  { fixedBytes, maxBytes }: { fixedBytes: number; maxBytes: number },
): HistoryMessage[] {
  let start = 0;
  let size = fixedBytes + JSON.stringify(history).length;
  while (size > maxBytes && start < history.length - 1) {
    size -= JSON.stringify(history[start]).length + 1;
    start++;
    while (start < history.length - 1 && history[start]!.role !== "user") {
      size -= JSON.stringify(history[start]).length + 1;
      start++;
    }
  }
  return history.slice(start);
}
