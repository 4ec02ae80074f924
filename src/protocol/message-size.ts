import type { HistoryMessage } from "./messages.ts";

const encoder = new TextEncoder();
const sizes = new WeakMap<HistoryMessage, number>();

/**
 * A message's size as sent: the UTF-8 bytes of its JSON. Remembered per message object, because every turn measures
 * its window twice (fitting it, estimating its tokens) and the history store keeps the window's objects from one turn
 * to the next; nothing changes a stored message in place.
 */
export function jsonBytes(message: HistoryMessage): number {
  let size = sizes.get(message);
  if (size === undefined) {
    size = encoder.encode(JSON.stringify(message)).byteLength;
    sizes.set(message, size);
  }
  return size;
}
