/**
 * What the fake Cloudflare API recorded that Cloudflare would not know: an endpoint it does not serve (Cloudflare
 * answers 404, "Could not route to …"), a field or binding type the upload's metadata schema does not have (Cloudflare
 * refuses some and ignores others; either way a test must hear of it), or a request body it cannot read. Like the
 * fake Telegram's violations (scripts/bot-api/vocabulary.ts), each fails the test that caused it.
 */
export interface Violation {
  method: string;
  /** The path under /client/v4, without the query. */
  path: string;
  problem: "unknown endpoint" | "unknown field" | "unknown binding type" | "unreadable body";
  /** Which field or type, or what could not be read. */
  detail?: string;
  at: number;
}

export function describeViolation(violation: Violation): string {
  const where = `${violation.method} ${violation.path}`;
  return violation.detail ? `${where}: ${violation.problem} ${violation.detail}` : `${where}: ${violation.problem}`;
}
