/** An error's message for a log line or a note: an `Error`'s message, else the thrown value as text. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The end of an exhaustive `switch`: the compiler proves it unreachable; at run time it names what slipped through. */
export function assertNever(value: never, what = "value"): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(value)}`);
}
