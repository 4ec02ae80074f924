import type * as z from "zod";

/**
 * One named value a chat's object keeps (storage's `meta` table), declared by the feature that owns it: its key and
 * the schema it is read back through. Storage knows no feature: it keeps text under keys, and a slot says what the
 * text is (a row that no longer matches its schema reads as absent).
 */
export interface Slot<T> {
  readonly key: string;
  readonly schema: z.ZodType<T>;
}

const keys = new Set<string>();

/** Declares a slot; a key declared twice is a mistake that would mix two features' values, so it throws. */
export function slot<T>(key: string, schema: z.ZodType<T>): Slot<T> {
  if (keys.has(key)) throw new Error(`the chat slot "${key}" is declared twice`);
  keys.add(key);
  return { key, schema };
}
