import { NO_CONNECTION, type ProviderSetup } from "../config/provider-setup.ts";
import { type AgentErrorEvent, BUDGET_RAN_OUT } from "../protocol/events.ts";

/** The message of the `timeout` error a turn gets when it runs into its time limit (see runTurn). */
export const TURN_TIME_LIMIT = "the turn ran into its time limit";

/**
 * One short message per kind of failure; the technical detail goes to the log, not the chat, except for refusals.
 * With the provider's setup the message says which provider and what to check: the key's variable when a key is
 * refused, and, when nothing answers at an address this bot was given on this machine, that address (its origin only)
 * rather than an outage.
 */
export function userFacingError(error: AgentErrorEvent, setup?: ProviderSetup): string {
  const provider = setup?.label ?? "The AI provider";
  switch (error.classification) {
    case "auth":
      if (setup?.keyVariable) {
        return `⚠️ ${setup.label} refused this bot's credentials (${setup.keyVariable}). The bot's owner needs to check that key: in .dev.vars locally, or with \`npx wrangler secret put ${setup.keyVariable}\` deployed.`;
      }
      return `⚠️ ${provider} refused this bot's credentials. The bot's owner needs to check the API key.`;
    case "quota":
      if (error.message === BUDGET_RAN_OUT) {
        return "⏳ This chat's budget for today ran out while I was working on that, so I stopped. /status shows it.";
      }
      return `⚠️ ${provider} is rate-limiting this bot right now. Please try again in a minute.`;
    case "overloaded":
      return `⚠️ ${provider} is overloaded right now. Please try again in a minute.`;
    case "timeout":
      if (error.message === TURN_TIME_LIMIT)
        return "⚠️ That took longer than one turn may run (about 13 minutes) and was stopped.";
      return `⚠️ ${provider} did not answer in time. Please try again shortly.`;
    case "transport":
      return error.message.includes(NO_CONNECTION)
        ? unreachable(provider, setup?.endpoint)
        : `⚠️ ${provider} could not be reached. Please try again shortly.`;
    case "invalid_request":
      return `⚠️ ${provider} refused the request (${shorten(error.message)}). If this keeps happening, send /new to start a fresh conversation.`;
    case "cancelled":
      return "⏹ Stopped.";
    case "internal":
      return `⚠️ Something went wrong: ${shorten(error.message)}`;
  }
}

/**
 * No connection at all: a provider at its public address may be down; nothing answering at an address this bot was
 * given on this machine is a server that is not running (or a wrong address), not an outage.
 */
function unreachable(provider: string, endpoint: ProviderSetup["endpoint"] | undefined): string {
  switch (endpoint?.kind) {
    case "configured":
      return endpoint.local
        ? `⚠️ Nothing answers at ${endpoint.variable} (${endpoint.origin}) on this machine: the server there is not running, or the address is wrong.`
        : `⚠️ ${provider} could not be reached at ${endpoint.variable} (${endpoint.origin}). If this lasts, check that address.`;
    case "runner":
      return "⚠️ The agent runner could not be reached. If it was started by hand (AGENT_RUNNER_URL), check that it is running.";
    case "binding":
    case "public":
    case undefined:
      return `⚠️ ${provider} could not be reached. Please try again shortly.`;
  }
}

/**
 * Why a turn has no model, and where to set what is missing (`problem` names it). A bot with no model at all (no key,
 * and the Workers AI binding it falls back to does not run here: local dev) says so as such, not as this chat's.
 */
export function notSetUpText(provider: string, problem: string, builtIn: boolean): string {
  if (provider === "workers-ai" && builtIn) {
    return (
      "⚠️ No model is set up for this bot yet: there is no OPENAI_API_KEY or ANTHROPIC_API_KEY, and the Workers AI " +
      "binding it would use without one does not run here (local dev has none). Add a key to .dev.vars (locally) or " +
      "with `npx wrangler secret put OPENAI_API_KEY` (deployed); `npm run dev` without a key starts a stand-in model."
    );
  }
  return `⚠️ This chat uses ${provider}, but ${problem}. The bot's owner needs to set it.`;
}

function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
