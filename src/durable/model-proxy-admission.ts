import type { ProxyUsage } from "../adapters/agent-runs.ts";
import { settingsOf } from "../config/loaded-settings.ts";
import type { Env } from "../env.ts";
import { assertNever } from "../lib/errors.ts";
import { BUDGET_RAN_OUT } from "../protocol/events.ts";
import { utf8Bytes } from "../protocol/json-size.ts";
import { chatKeyOfModelKey, runKeyOf, verifyRunToken } from "../protocol/run-token.ts";

/** Whether a model call of a run may go ahead now, and with which model. */
export type Admission =
  | { kind: "admitted"; model: string }
  /** The run was closed (or never opened): its token opens nothing. */
  | { kind: "closed" }
  /** The run made MAX_MODEL_CALLS_PER_MINUTE calls in the last minute. */
  | { kind: "rate_limited"; retryAfterSeconds: number }
  /** The run has spent what its chat's daily budget left it when it started. */
  | { kind: "over_budget" };

/** What one model call may use at most, held before it is forwarded (its id releases it). */
export interface CallHold {
  id: string;
  inputTokens: number;
  outputTokens: number;
}

/** The running turns of one chat's container, as the proxy needs them (the AgentContainer object in production). */
export interface RunLedger {
  /** Counts the call against the run's rate when admitted, and holds what it may use against the allowance. */
  admit(runKey: string, hold?: CallHold): Promise<Admission>;
  /** The call's usage, in place of its hold. */
  record(runKey: string, usage: ProxyUsage, holdId?: string): Promise<void>;
}

/** Far above any real request of a chat's agent (the CLIs compact long before), but bounded. */
const MAX_PROXIED_REQUEST_BYTES = 16 * 1024 * 1024;

/** Whether a proxied model call may go ahead: with the run's model and ledger, or refused with why. */
export type ProxyAdmission =
  | { kind: "admitted"; model: string; runKey: string; ledger: RunLedger; holdId: string | undefined }
  | { kind: "refused"; status: 401 | 400; reason: "auth" | "budget"; message: string }
  | { kind: "rate_limited"; retryAfterSeconds: number; message: string };

export interface AdmissionInput {
  request: Request;
  env: Env;
  /** The id of the container the call came from (the outbound handler's context). */
  containerId: string;
  ledgerFor: (chatKey: string) => RunLedger;
  now?: number;
  /** The most output one call may make (held with its input before it is forwarded); none: nothing is held. */
  maxOutputTokens?: number | undefined;
}

/**
 * The check both model proxies (Anthropic's Messages API, OpenAI's Responses API) make before anything costs: the
 * call's API key must be the token of a turn running in this very container's chat (signed by this deployment, not
 * expired, its chat's container, and still open in the container's ledger), within the run's rate. Admitted, it
 * counts against the rate and gives the model the turn was started with.
 */
export async function admitProxiedCall(input: AdmissionInput): Promise<ProxyAdmission> {
  const { request, env } = input;
  const settings = settingsOf(env);
  const presented =
    request.headers.get("x-api-key") ?? /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  // The CLI's key names its chat (the ledger of that chat's container decides whether its run is open); a run token
  // itself is checked by its signature.
  const modelKeyChat = presented ? chatKeyOfModelKey(presented) : undefined;
  const claims =
    modelKeyChat !== undefined
      ? { chatKey: modelKeyChat }
      : presented && settings.botToken
        ? await verifyRunToken(settings.botToken, presented, input.now ?? Date.now())
        : undefined;
  // A token of another chat's run is refused too: each container pays only for its own chat's turns.
  if (!presented || !claims || env.AGENT_CONTAINER?.idFromName(claims.chatKey).toString() !== input.containerId) {
    return {
      kind: "refused",
      status: 401,
      reason: "auth",
      message: "Not the token of a turn running in this container.",
    };
  }
  const ledger = input.ledgerFor(claims.chatKey);
  const runKey = await runKeyOf(presented);
  // What the call may use, held before it is forwarded: its input as the request's size tells (four bytes a token),
  // and the most output the proxy lets one call make.
  const hold = holdFor(request, input.maxOutputTokens);
  const admission = await ledger.admit(runKey, hold);
  switch (admission.kind) {
    case "closed":
      return { kind: "refused", status: 401, reason: "auth", message: "That turn is not running any more." };
    case "over_budget":
      // Not retried by the CLIs (a 4xx that is not a rate limit): the run ends, and the turn says why.
      return { kind: "refused", status: 400, reason: "budget", message: `Stopped: ${BUDGET_RAN_OUT}.` };
    case "rate_limited":
      return {
        kind: "rate_limited",
        retryAfterSeconds: admission.retryAfterSeconds,
        message: "Too many model calls in this turn; slow down.",
      };
    case "admitted":
      return { kind: "admitted", model: admission.model, runKey, ledger, holdId: hold?.id };
    default:
      return assertNever(admission, "admission");
  }
}

function holdFor(request: Request, maxOutputTokens: number | undefined): CallHold | undefined {
  if (maxOutputTokens === undefined) return undefined;
  const bytes = Number(request.headers.get("content-length") ?? "0");
  const inputTokens =
    Number.isFinite(bytes) && bytes > 0 ? Math.ceil(Math.min(bytes, MAX_PROXIED_REQUEST_BYTES) / 4) : 0;
  return { id: crypto.randomUUID(), inputTokens, outputTokens: maxOutputTokens };
}

/** A proxied request's body: a JSON object within the size bound, or why not. */
export type ProxiedBody =
  | { kind: "object"; body: Record<string, unknown>; bytes: number }
  | { kind: "too_large" }
  | { kind: "not_json" }
  | { kind: "not_object" };

export async function readProxiedBody(request: Request): Promise<ProxiedBody> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_PROXIED_REQUEST_BYTES) return { kind: "too_large" };
  const raw = await request.text();
  if (raw.length > MAX_PROXIED_REQUEST_BYTES) return { kind: "too_large" };
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return { kind: "not_json" };
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) return { kind: "not_object" };
  return { kind: "object", body: body as Record<string, unknown>, bytes: utf8Bytes(raw) };
}
