import { custom, decimal, integer, readingOf, secret, url } from "../knob.ts";

const group = "Agents, helpers, skills and MCP";

/** What a container may reach besides the Worker's own handlers: nothing, these host names, or the internet. */
export type AgentEgress = { kind: "none" } | { kind: "hosts"; hosts: readonly string[] } | { kind: "internet" };

function egressOf(value: string) {
  if (value === "*") return readingOf<AgentEgress>({ kind: "internet" });
  const hosts = value
    .split(",")
    .map((host) => host.trim().toLowerCase())
    .filter((host) => host !== "");
  // Host names only (a leading "*." for subdomains): no schemes, paths, ports or a lone "*" among others.
  if (!hosts.every((host) => /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(host))) {
    return { ok: false as const, problem: "must be empty, * or a comma-separated list of host names" };
  }
  return readingOf<AgentEgress>({ kind: "hosts", hosts });
}

export const AGENT_KNOBS = {
  AGENT_TIMEOUT_SECONDS: integer(
    { group, description: "a runner silent this long counts as dead" },
    { min: 1, max: 3_600, fallback: 300 },
  ),
  AGENT_MAX_OUTPUT_TOKENS: integer(
    {
      group,
      description: "the most output tokens one model call of a container's agent may ask for; the model proxy caps it",
    },
    { min: 1_024, max: 128_000, fallback: 16_000 },
  ),
  AGENT_EGRESS_HOSTS: custom<AgentEgress>(
    {
      kind: "variable",
      group,
      description:
        "what an agent's container may reach besides the model proxy and tool host: empty for nothing, host names (`github.com,*.npmjs.org`), or `*` for the internet",
    },
    { rule: "empty, * or a comma-separated list of host names", fallback: { kind: "none" }, read: egressOf },
  ),
  HELPERS_MAX_RUNNING: integer(
    { group, description: "background helpers (`spawn`) one chat may have running at once; 0: no `spawn` tool" },
    { min: 0, max: 10, fallback: 2 },
  ),
  HELPER_TIMEOUT_SECONDS: integer(
    {
      group,
      description:
        "the longest a background helper runs before it reports that it ran out of time (its object's alarm ends at 15 minutes)",
    },
    { min: 10, max: 780, fallback: 600 },
  ),
  HELPER_BUDGET_SHARE: decimal(
    {
      group,
      description:
        "the share of what is left of a chat's daily budget and paid-call allowance each helper gets when it starts (above 0, at most 1)",
    },
    { max: 1, fallback: 0.5 },
  ),
  MCP_LIST_CACHE_SECONDS: integer(
    {
      group,
      description:
        "how long a chat's MCP server's tool list is kept (in memory, per isolate) before the server is asked again; 0 asks every turn",
    },
    { min: 0, max: 86_400, fallback: 300 },
  ),
  MCP_TIMEOUT_SECONDS: integer(
    {
      group,
      description:
        "how long one request to an MCP server (connect, list, call) may take; a listing that times out leaves that server's tools out of the turn",
    },
    { min: 1, max: 300, fallback: 20 },
  ),
  AGENT_RUNNER_URL: url({
    kind: "variable",
    group: "Deployment and development",
    description: "dev and tests: a runner started by hand, used instead of the container",
  }),
  AGENT_RUNNER_TOKEN: secret({
    group: "Deployment and development",
    description: "dev: the bearer token sent to `AGENT_RUNNER_URL` (the runner's `RUNNER_TOKEN`)",
  }),
  AGENT_CALLBACK_URL: url({
    kind: "variable",
    group: "Deployment and development",
    description:
      "dev: where a runner started by hand calls tools back (this Worker's URL); only then does the public `POST /agent/tools/:chat` route exist. Unset, containers call back through their outbound handler",
  }),
} as const;
