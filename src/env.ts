import type { AgentContainer } from "./durable/agent-container.ts";
import type { ChatSession } from "./durable/chat-session.ts";

/** Bindings and variables, as `wrangler.toml`, `wrangler secret put` and `.dev.vars` provide them. */
export interface Env {
  CHAT_SESSION: DurableObjectNamespace<ChatSession>;
  AGENT_CONTAINER?: DurableObjectNamespace<AgentContainer>;
  DB: D1Database;
  CONFIG: KVNamespace;

  TELEGRAM_BOT_TOKEN?: string;
  TELEGRAM_WEBHOOK_SECRET?: string;
  TELEGRAM_API_BASE_URL?: string;
  ALLOWED_CHAT_IDS?: string;
  ADMIN_USER_IDS?: string;
  ADMIN_CHAT_IDS?: string;
  ADMIN_TOKEN?: string;
  BOT_NAME?: string;

  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  ANTHROPIC_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  DEFAULT_PROVIDER?: string;
  DEFAULT_MODEL?: string;

  HISTORY_LIMIT?: string;
  PROVIDER_MAX_RETRIES?: string;
  PROVIDER_TIMEOUT_SECONDS?: string;
  DEFAULT_TIMEZONE?: string;
  USAGE_FLUSH_SECONDS?: string;

  AGENT_RUNNER_URL?: string;
  AGENT_RUNNER_TOKEN?: string;
  AGENT_TIMEOUT_SECONDS?: string;
  AGENT_CALLBACK_URL?: string;
}
