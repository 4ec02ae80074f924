import * as z from "zod";

/** Secrets a chat's MCP headers may name: only these, so a config can never send the bot's own keys elsewhere. */
const MCP_SECRET_PREFIX = "MCP_";
/** A chat may name this many servers; each offers the model at most MAX_TOOLS_PER_SERVER tools. */
const MAX_MCP_SERVERS = 8;
export const MAX_TOOLS_PER_SERVER = 64;
/** Between a server's name and its tool's: `docs__search`. Server names have no underscore, so it splits one way. */
const NAMESPACE_SEPARATOR = "__";

const serverName = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,19}$/, "must be 1-20 characters of a-z, 0-9 and -, starting with a letter");

const secretName = z
  .string()
  .regex(
    /^MCP_[A-Z0-9_]{1,60}$/,
    `must name a Worker secret or variable starting with ${MCP_SECRET_PREFIX} (A-Z, 0-9, _)`,
  );

/** Header names that carry credentials: their value must come from a secret, never sit in KV in clear. */
const CREDENTIAL_HEADER = /authorization|cookie|token|secret|key|password|auth/i;

const headerValue = z.union([
  /** From a Worker secret (or variable) by name, with an optional prefix such as "Bearer ". */
  z.strictObject({ secret: secretName, prefix: z.string().max(20).optional() }),
  /** A plain value, for headers that carry nothing secret. */
  z.strictObject({ value: z.string().max(500) }),
]);

const headerName = z.string().regex(/^[A-Za-z0-9-]{1,64}$/, "must be an HTTP header name");

/** http only to this machine (dev and tests); anywhere else a header's secret would cross the network in clear. */
function isAllowedUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.username !== "" || url.password !== "") return false;
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
}

const mcpServerSchema = z.strictObject({
  /** Prefixes the server's tools: `<name>__<tool>`. */
  name: serverName,
  /** The server's Streamable HTTP endpoint. */
  url: z
    .string()
    .max(2000)
    .refine(isAllowedUrl, { message: "must be an https URL without credentials (http only to localhost)" }),
  headers: z
    .record(headerName, headerValue)
    .refine((headers) => Object.keys(headers).length <= 16, { message: "at most 16 headers" })
    .superRefine((headers, context) => {
      for (const [name, value] of Object.entries(headers)) {
        if ("value" in value && CREDENTIAL_HEADER.test(name)) {
          context.addIssue({
            code: "custom",
            path: [name],
            message: `looks like a credential: give it as {"secret": "${MCP_SECRET_PREFIX}…"}, never as a plain value`,
          });
        }
      }
    })
    .optional(),
});
export type McpServerConfig = z.infer<typeof mcpServerSchema>;

export const mcpServersSchema = z
  .array(mcpServerSchema)
  .max(MAX_MCP_SERVERS)
  .superRefine((servers, context) => {
    const seen = new Set<string>();
    for (const [index, server] of servers.entries()) {
      if (seen.has(server.name)) {
        context.addIssue({ code: "custom", path: [index, "name"], message: `${server.name} is named twice` });
      }
      seen.add(server.name);
    }
  });

/** The name a server's tool has in the chat's tool set. */
export function namespacedToolName(server: string, tool: string): string {
  return `${server}${NAMESPACE_SEPARATOR}${tool}`;
}

/** An allowlist entry for MCP tools: `<server>__<tool>`, or `<server>__*` for all of a server's tools. */
export const MCP_ALLOWLIST_ENTRY = /^([a-z][a-z0-9-]{0,19})__(\*|[A-Za-z0-9_-]{1,64})$/;

/** Whether a tool name is allowed by a chat's allowlist (absent: everything), `<server>__*` included. */
export function allowlistAllows(allowlist: readonly string[] | undefined, name: string): boolean {
  if (allowlist === undefined || allowlist.includes(name)) return true;
  const separator = name.indexOf(NAMESPACE_SEPARATOR);
  return separator > 0 && allowlist.includes(`${name.slice(0, separator)}${NAMESPACE_SEPARATOR}*`);
}
