import * as z from "zod";

export const PROVIDERS = ["openai", "anthropic", "claude-agent"] as const;
export const providerSchema = z.enum(PROVIDERS);
export type Provider = z.infer<typeof providerSchema>;

export function isProvider(name: string): name is Provider {
  return (PROVIDERS as readonly string[]).includes(name);
}

/** Each provider's model when neither the chat nor DEFAULT_MODEL names one. */
export const DEFAULT_MODELS: Record<Provider, string> = {
  openai: "gpt-4o-mini",
  anthropic: "claude-sonnet-4-5",
  "claude-agent": "claude-sonnet-4-5",
};
