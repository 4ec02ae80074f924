import * as z from "zod";

/**
 * One knob of the bot: where it is set, what it does, its default and what a valid value looks like. The settings
 * schema (settings-schema.ts) is a table of these; the reader, the admin API, the console and the README's
 * configuration table are all made from it.
 *
 * - `secret`: a `wrangler secret` (and `.dev.vars` locally); never shown, never stored anywhere else.
 * - `variable`: a deployment's decision, only ever a variable (`[vars]`, `.dev.vars`): where keys are sent, who is
 *   admin, what the dev tools reach. The console shows it and cannot change it.
 * - `setting`: changed at run time in the console or the admin API (kept in KV, applied within a minute, no
 *   redeploy), or set as a variable by those who prefer; a variable that is set wins.
 */
export type KnobKind = "secret" | "variable" | "setting";

/** Sections of the README's table and of the console's settings page, in order. */
export const KNOB_GROUPS = [
  "General",
  "Telegram and access",
  "Models",
  "History and memory",
  "Answers in Telegram",
  "Limits and prices",
  "Photos, voice and files",
  "Speech",
  "Web search and fetch",
  "Agents, helpers, skills and MCP",
  "Deployment and development",
] as const;
export type KnobGroup = (typeof KNOB_GROUPS)[number];

/** What a set value gave: the value (with what is wrong with parts of it that were left out), or why it is unusable. */
export type Reading<T> = { ok: true; value: T; problems: readonly string[] } | { ok: false; problem: string };

/** How the console asks for a value. */
type KnobInput =
  | { type: "number"; min: number; max: number; step: "1" | "any" }
  | { type: "choice"; options: readonly string[] }
  | { type: "text" };

export interface Knob<T> {
  readonly kind: KnobKind;
  readonly group: KnobGroup;
  /** What it does, one or two sentences (the README's table, the console's help). */
  readonly description: string;
  /** What a valid value is, completing "<NAME> must be …". */
  readonly rule: string;
  /** The value when it is not set (or set to something unusable, which /health reports). */
  readonly fallback: T;
  /** The default as a person reads it; empty when unset means "none" or is explained in the description. */
  readonly shownDefault: string;
  readonly input: KnobInput;
  /** Reads a set value: trimmed, never empty (empty counts as unset). */
  read(text: string): Reading<T>;
}

/** The value type of a knob. */
export type KnobValue<K> = K extends Knob<infer T> ? T : never;

interface About {
  kind?: KnobKind;
  group: KnobGroup;
  description: string;
}

function ok<T>(value: T, problems: readonly string[] = []): Reading<T> {
  return { ok: true, value, problems };
}

/** A knob whose value is checked by a zod schema over its text. */
function checked<T>(
  about: About,
  parts: { schema: z.ZodType<T, string>; rule: string; fallback: T; shownDefault: string; input: KnobInput },
): Knob<T> {
  return {
    kind: about.kind ?? "setting",
    group: about.group,
    description: about.description,
    rule: parts.rule,
    fallback: parts.fallback,
    shownDefault: parts.shownDefault,
    input: parts.input,
    read(text) {
      const parsed = parts.schema.safeParse(text);
      return parsed.success ? ok(parsed.data) : { ok: false, problem: `must be ${parts.rule}` };
    },
  };
}

/** 12345 as "12,345", as the README writes numbers. */
function grouped(value: number): string {
  return value.toLocaleString("en-US", { maximumFractionDigits: 6 });
}

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^-?\d+$/)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
const decimalNumber = (max: number) =>
  z
    .string()
    .regex(/^\d*\.?\d+(e-?\d+)?$/i)
    .transform(Number)
    .pipe(z.number().min(0).max(max));

/** A whole number from `min` to `max`; `fallback` when unset. */
export function integer(about: About, range: { min: number; max: number; fallback: number }): Knob<number> {
  return checked(about, {
    schema: wholeNumber(range.min, range.max),
    rule: `a whole number from ${range.min} to ${range.max}`,
    fallback: range.fallback,
    shownDefault: grouped(range.fallback),
    input: { type: "number", min: range.min, max: range.max, step: "1" },
  });
}

/** A whole number from `min` to `max`, or unset (undefined: the description says what that means). */
export function optionalInteger(about: About, range: { min: number; max: number }): Knob<number | undefined> {
  return checked<number | undefined>(about, {
    schema: wholeNumber(range.min, range.max),
    rule: `a whole number from ${range.min} to ${range.max}, or empty`,
    fallback: undefined,
    shownDefault: "",
    input: { type: "number", min: range.min, max: range.max, step: "1" },
  });
}

/** A number from 0 to `max`, decimals allowed; `fallback` when unset. */
export function decimal(about: About, range: { max: number; fallback: number }): Knob<number> {
  return checked(about, {
    schema: decimalNumber(range.max),
    rule: `a number from 0 to ${range.max}`,
    fallback: range.fallback,
    shownDefault: grouped(range.fallback),
    input: { type: "number", min: 0, max: range.max, step: "any" },
  });
}

/** A number from 0 to `max`, or unset (no limit). */
export function optionalDecimal(about: About, range: { max: number }): Knob<number | undefined> {
  return checked<number | undefined>(about, {
    schema: decimalNumber(range.max),
    rule: `a number from 0 to ${range.max}, or empty for no limit`,
    fallback: undefined,
    shownDefault: "",
    input: { type: "number", min: 0, max: range.max, step: "any" },
  });
}

/** One of `options` (case-insensitive); `fallback` when unset. */
export function choice<const Option extends string>(
  about: About,
  options: readonly [Option, ...Option[]],
  fallback: Option,
): Knob<Option> {
  return checked(about, {
    schema: z
      .string()
      .transform((text) => text.toLowerCase())
      .pipe(z.enum(options)),
    rule: `one of ${options.join(", ")}`,
    fallback,
    shownDefault: fallback,
    input: { type: "choice", options },
  });
}

/** on or off (true/false, 1/0 too). */
export function onOff(about: About, fallback: boolean): Knob<boolean> {
  const words = { on: true, true: true, "1": true, off: false, false: false, "0": false } as const;
  return checked(about, {
    schema: z
      .string()
      .transform((text) => text.toLowerCase())
      .pipe(z.enum(["on", "true", "1", "off", "false", "0"]))
      .transform((word) => words[word]),
    rule: "on or off",
    fallback,
    shownDefault: fallback ? "on" : "off",
    input: { type: "choice", options: ["on", "off"] },
  });
}

/** Free text up to `maxLength` characters; undefined (or `fallback`) when unset. */
export function text(about: About, options: { fallback?: string; maxLength?: number } = {}): Knob<string | undefined> {
  const maxLength = options.maxLength ?? 2_000;
  return checked<string | undefined>(about, {
    schema: z.string().max(maxLength),
    rule: `at most ${grouped(maxLength)} characters`,
    fallback: options.fallback,
    shownDefault: options.fallback ?? "",
    input: { type: "text" },
  });
}

/** Free text with a default (never undefined). */
export function textWithDefault(about: About, fallback: string, maxLength = 2_000): Knob<string> {
  return checked(about, {
    schema: z.string().max(maxLength),
    rule: `at most ${grouped(maxLength)} characters`,
    fallback,
    shownDefault: fallback,
    input: { type: "text" },
  });
}

/** An http(s) URL, without its trailing slashes. */
export function url(about: About, fallback?: string): Knob<string | undefined> {
  return checked<string | undefined>(about, {
    schema: z
      .url({ protocol: /^https?$/ })
      .max(2_000)
      .transform((value) => value.replace(/\/+$/, "")),
    rule: "an http(s) URL",
    fallback,
    shownDefault: fallback ?? "",
    input: { type: "text" },
  });
}

/** A knob with its own reader, for values that are lists or maps (see settings-lists.ts). */
export function custom<T>(
  about: About,
  parts: { rule: string; fallback: T; shownDefault?: string; read(text: string): Reading<T> },
): Knob<T> {
  return {
    kind: about.kind ?? "setting",
    group: about.group,
    description: about.description,
    rule: parts.rule,
    fallback: parts.fallback,
    shownDefault: parts.shownDefault ?? "",
    input: { type: "text" },
    read: parts.read,
  };
}

/** A secret: a string, never shown. */
export function secret(about: Omit<About, "kind">): Knob<string | undefined> {
  return {
    kind: "secret",
    group: about.group,
    description: about.description,
    rule: "set",
    fallback: undefined,
    shownDefault: "",
    input: { type: "text" },
    read: (value) => ok(value),
  };
}

export { ok as readingOf };
