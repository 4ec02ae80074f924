const encoder = new TextEncoder();
const sizes = new WeakMap<object, number>();

/**
 * A value's size as sent: the UTF-8 bytes of its JSON. Remembered per object, for objects nothing changes in place:
 * the history store keeps a window's messages from one turn to the next, the registry a tool's model description, and
 * every turn measures both (fitting the window, estimating the call's tokens, the room left for files).
 */
export function jsonBytes(value: object): number {
  let size = sizes.get(value);
  if (size === undefined) {
    size = utf8Bytes(JSON.stringify(value));
    sizes.set(value, size);
  }
  return size;
}

/**
 * Records the size of a value whose JSON is at hand (`text`, from `JSON.stringify` of an equal value), so that
 * `jsonBytes` of it costs no second serialization: a message the history store has just written is measured next turn.
 */
export function knownJsonBytes(value: object, text: string): number {
  const size = utf8Bytes(text);
  sizes.set(value, size);
  return size;
}

/** The UTF-8 bytes of a text. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}

/** The UTF-8 bytes of a list's JSON (`JSON.stringify(values)`), from each value's own size. */
export function jsonBytesOfAll(values: readonly object[]): number {
  // "[" and "]", and a comma between two values.
  return values.reduce((sum: number, value) => sum + jsonBytes(value), 2) + Math.max(values.length - 1, 0);
}
