import { Hono } from "hono/tiny";
import { ConfigProblemsStore } from "../../config/config-problems.ts";
import { type FeatureOff, featuresOff } from "../../config/features-off.ts";
import { settingsOf } from "../../config/loaded-settings.ts";
import { RetiredModelsStore } from "../../config/retired-models.ts";
import { builtInProvider, type Settings } from "../../config/settings.ts";
import { WaitingOutboxes, type WaitingSummary } from "../../config/waiting-outboxes.ts";
import { historyVectors, mediaBucket } from "../../durable/optional-bindings.ts";
import { type Env, workersAiBinding } from "../../env.ts";

/**
 * `GET /health`: whether the bot can work, and if not, which variables are missing or unusable. Names only, never
 * values. The webhook refuses every call while TELEGRAM_WEBHOOK_SECRET is missing.
 */
export function healthRoutes(): Hono<{ Bindings: Env }> {
  return new Hono<{ Bindings: Env }>().get("/", async (c) =>
    c.json(await withRetired(c.env, await withWaiting(c.env, await withChatProblems(c.env, healthReport(c.env))))),
  );
}

/**
 * The models a provider refused as no longer served when a chat asked for them (chats fell back): a problem of the
 * setup, since every turn that names one pays a refused call first. Names of models only.
 */
async function withRetired(env: Env, report: HealthReport): Promise<HealthReport> {
  const retired = Object.values(await new RetiredModelsStore(env.CONFIG).read().catch(() => ({})));
  if (retired.length === 0) return report;
  const lines = retired.map(
    (entry) =>
      `${entry.provider} no longer serves ${entry.model} (retired); chats that name it fall back to ${entry.fellBackTo}: choose another model (/model, the console, DEFAULT_MODEL)`,
  );
  return {
    ...report,
    ok: false,
    problems: [...report.problems, ...lines],
    retiredModels: retired.map(({ provider, model, at, fellBackTo }) => ({
      provider,
      model,
      fellBackTo,
      since: new Date(at).toISOString(),
    })),
  };
}

/**
 * What waits for Telegram across chats (their outboxes, while Telegram is or was unavailable): how many messages in
 * how many chats, since when. Not a problem of the setup, so `ok` stays as it is; the console's chat page has each
 * chat's count (GET /admin/chats/:chatId/outbox).
 */
async function withWaiting(env: Env, report: HealthReport): Promise<HealthReport> {
  const waiting = await new WaitingOutboxes(env.CONFIG).summary().catch(() => undefined);
  return waiting === undefined ? report : { ...report, waitingForTelegram: waiting };
}

/** The environment's report, and how many chats get no answers because their stored config is invalid (no ids). */
async function withChatProblems(env: Env, report: HealthReport): Promise<HealthReport> {
  const invalid = Object.keys(await new ConfigProblemsStore(env.CONFIG).read().catch(() => ({}))).length;
  if (invalid === 0) return report;
  const line = `${invalid} chat${invalid === 1 ? " has" : "s have"} an invalid stored config and get${invalid === 1 ? "s" : ""} no answers until it is fixed (GET /admin/chats names them)`;
  return { ...report, ok: false, problems: [...report.problems, line] };
}

interface HealthReport {
  ok: boolean;
  /** The account's Workers plan, as the deploy wrote it (WORKERS_PLAN). */
  plan: "free" | "paid";
  missing: string[];
  problems: string[];
  /** What this deployment leaves off (its plan, its bindings), and why: a choice, not a problem. */
  off: FeatureOff[];
  waitingForTelegram?: WaitingSummary;
  /** Models a provider refused as retired when a chat asked for them. */
  retiredModels?: { provider: string; model: string; fellBackTo: string; since: string }[];
}

export function healthReport(env: Env): HealthReport {
  const settings = settingsOf(env);
  const missing = missingVariables(settings, env);
  const problems = [...settings.problems];
  if (
    settings.plan === "free" &&
    (settings.defaultProvider === "claude-agent" || settings.defaultProvider === "codex-agent")
  ) {
    problems.push(
      `DEFAULT_PROVIDER is ${settings.defaultProvider}, an agent in a container, which Workers Free cannot run`,
    );
  }
  const off = featuresOff(settings, {
    media: mediaBucket(env) !== undefined,
    historyVectors: historyVectors(env) !== undefined,
  });
  return { ok: missing.length === 0 && problems.length === 0, plan: settings.plan, missing, problems, off };
}

function missingVariables(settings: Settings, env: Env): string[] {
  const missing: string[] = [];
  if (!settings.botToken) missing.push("TELEGRAM_BOT_TOKEN");
  if (!settings.webhookSecret) missing.push("TELEGRAM_WEBHOOK_SECRET");
  const provider = settings.defaultProvider ?? builtInProvider(settings);
  if (provider === "openai" && !settings.openaiApiKey) missing.push("OPENAI_API_KEY");
  if (provider === "anthropic" && !settings.anthropicApiKey) missing.push("ANTHROPIC_API_KEY");
  // A runner started by hand (AGENT_RUNNER_URL) holds its own key; the container gets it from the Worker.
  if (provider === "claude-agent" && settings.agentRunner.kind === "container" && !settings.anthropicApiKey) {
    missing.push("ANTHROPIC_API_KEY");
  }
  if (provider === "codex-agent" && settings.agentRunner.kind === "container" && !settings.openaiApiKey) {
    missing.push("OPENAI_API_KEY");
  }
  // Workers AI needs no key: the `AI` binding (deployed only), or WORKERS_AI_BASE_URL with WORKERS_AI_API_TOKEN.
  if (provider === "workers-ai" && settings.workersAi.kind === "binding" && !workersAiBinding(env))
    missing.push("AI (binding)");
  return missing;
}
