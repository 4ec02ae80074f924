import type { Provider } from "./providers.ts";
import type { Settings } from "./settings.ts";

/**
 * Said in a provider error's message when no connection could be made at all (nothing answered at the address), as
 * opposed to a connection that broke or an answer that was an error: on this machine that is a server not running.
 */
export const NO_CONNECTION = "could not connect";

/**
 * Where a provider's key and endpoint are set, so that a failure can say what to check instead of a generic "could
 * not be reached": its name for people, the variable holding its key, and whether it is called at its own public
 * address, at an address this bot was given (and whether that is this machine), or through a binding.
 */
export interface ProviderSetup {
  label: string;
  keyVariable: string | undefined;
  endpoint:
    | { kind: "public" }
    | { kind: "configured"; variable: string; origin: string; local: boolean }
    | { kind: "binding" }
    | { kind: "runner" };
}

export function providerSetupOf(provider: Provider, settings: Settings): ProviderSetup {
  switch (provider) {
    case "openai":
      return {
        label: "OpenAI",
        keyVariable: "OPENAI_API_KEY",
        endpoint: endpointOf("OPENAI_BASE_URL", settings.openaiBaseUrl),
      };
    case "anthropic":
      return {
        label: "Anthropic",
        keyVariable: "ANTHROPIC_API_KEY",
        endpoint: endpointOf("ANTHROPIC_BASE_URL", settings.anthropicBaseUrl),
      };
    case "claude-agent":
      return { label: "The agent runner", keyVariable: "ANTHROPIC_API_KEY", endpoint: { kind: "runner" } };
    case "codex-agent":
      return { label: "The agent runner", keyVariable: "OPENAI_API_KEY", endpoint: { kind: "runner" } };
    case "workers-ai":
      return settings.workersAi.kind === "endpoint"
        ? {
            label: "Workers AI",
            keyVariable: "WORKERS_AI_API_TOKEN",
            endpoint: endpointOf("WORKERS_AI_BASE_URL", settings.workersAi.baseUrl),
          }
        : { label: "Workers AI", keyVariable: undefined, endpoint: { kind: "binding" } };
  }
}

/** Only the origin is ever shown: a configured URL's path or query might carry an account id or a token. */
function endpointOf(variable: string, url: string | undefined): ProviderSetup["endpoint"] {
  if (url === undefined) return { kind: "public" };
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  const local = host === "localhost" || host === "::1" || /^127\./.test(host) || host === "0.0.0.0";
  return { kind: "configured", variable, origin: parsed.origin, local };
}
