import type { McpServerConfig } from "../config/mcp-servers.ts";

/** Reads one of the Worker's secrets by name (an MCP server's header). */
export type SecretReader = (name: string) => unknown;

export type ResolvedHeaders =
  | { kind: "ok"; headers: Record<string, string>; secrets: string[] }
  | { kind: "missing"; secretName: string };

/**
 * A server's headers with each `{ secret }` read from the Worker's secrets or variables by name; the values never
 * leave this request (never stored, logged or returned). `secrets` lists them, so error texts can be scrubbed.
 */
export function resolveHeaders(server: McpServerConfig, secretOf: SecretReader): ResolvedHeaders {
  const headers: Record<string, string> = {};
  const secrets: string[] = [];
  for (const [name, value] of Object.entries(server.headers ?? {})) {
    if ("value" in value) {
      headers[name] = value.value;
      continue;
    }
    // Names are checked against MCP_* by the config schema; the Env type cannot list them.
    const secret = secretOf(value.secret);
    if (typeof secret !== "string" || secret.trim() === "") return { kind: "missing", secretName: value.secret };
    headers[name] = `${value.prefix ?? ""}${secret.trim()}`;
    secrets.push(secret.trim());
  }
  return { kind: "ok", headers, secrets };
}

/** A key for a server and the credentials it is reached with, without holding the credentials themselves. */
export async function identityOf(server: McpServerConfig, headers: Record<string, string>): Promise<string> {
  const text = JSON.stringify([
    server.url,
    Object.entries(headers).sort(([left], [right]) => left.localeCompare(right)),
  ]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
