import { METHOD_TABLE, type MethodTable } from "./method-table.ts";
import { unknownFields } from "./shape-check.ts";

/**
 * Whether Telegram knows a method and the fields sent with it (Bot API 10.5, see ./methods.json and
 * ./spec/README.md). An unknown method is answered 404 by Telegram; an unknown field is silently ignored by Telegram,
 * which is exactly why a test must hear of it: both are violations.
 */
export interface Violation {
  method: string;
  /** The field's path (`reply_markup.inline_keyboard[0][0].callbak_data`), when a field is at fault. */
  field?: string;
  /**
   * `widget network use`: a widget's HTML reaches for the network (an external URL, fetch…), which Telegram sends
   * but runs with no network (Bot API 10.4), so it cannot work.
   */
  problem: "unknown method" | "unknown field" | "missing field" | "widget network use";
}

/** Methods an older or self-hosted Bot API server (before 10.1) does not have. */
const RICH_METHODS = ["sendRichMessage", "sendRichMessageDraft"];

export interface Inspection {
  /** The method's name as the table spells it (Telegram matches method names without regard to case). */
  method: string | undefined;
  /** The parameters the method knows (unknown ones dropped, as Telegram ignores them). */
  params: Record<string, unknown>;
  violations: Violation[];
}

const BY_LOWER_NAME = new Map(Object.keys(METHOD_TABLE.methods).map((name) => [name.toLowerCase(), name]));

/** The method's name as the table spells it, or undefined when the Bot API has no such method. */
export function canonicalMethod(requested: string): string | undefined {
  return BY_LOWER_NAME.get(requested.toLowerCase());
}

export function inspectCall(
  requested: string,
  params: Record<string, unknown>,
  options: { richMessages: boolean; table?: MethodTable },
): Inspection {
  const table = options.table ?? METHOD_TABLE;
  const method = canonicalMethod(requested);
  if (!method) return { method: undefined, params, violations: [{ method: requested, problem: "unknown method" }] };
  // A server without rich messages knows neither their methods nor the edit's rich_message field (not a violation:
  // the bot is right to try them).
  if (!options.richMessages && RICH_METHODS.includes(method)) return { method: undefined, params, violations: [] };
  const fields = table.methods[method]!;
  const violations: Violation[] = [];
  const known: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) {
    const field = fields[name];
    if (!field) {
      violations.push({ method, field: name, problem: "unknown field" });
      continue;
    }
    if (!options.richMessages && name === "rich_message") continue;
    known[name] = value;
    for (const unknown of unknownFields(table, value, field.shape, name)) {
      violations.push({ method, field: unknown.path, problem: "unknown field" });
    }
  }
  for (const [name, field] of Object.entries(fields)) {
    // Telegram refuses these with its own words (chat_id is empty, message text is empty…), checked by the method.
    if (field.required && !(name in params)) violations.push({ method, field: name, problem: "missing field" });
  }
  return { method, params: known, violations };
}

export function describeViolation(violation: Violation): string {
  return violation.field
    ? `${violation.method}: ${violation.problem} ${violation.field}`
    : `${violation.method}: ${violation.problem}`;
}
