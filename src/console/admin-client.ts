import type { Hono } from "hono";
import type { Env } from "../env.ts";
import type { ErrorEnvelope } from "../protocol/http/error.ts";
import type { IssueDetail } from "../protocol/issues.ts";

/** What the admin API answered: its JSON, or its error envelope with the status. */
export type AdminResult<T> = { ok: true; data: T } | { ok: false; status: number; error: ErrorEnvelope };

/** One row of `GET /admin/chats`. */
export interface ChatRow {
  chatId: number;
  config?: Record<string, unknown>;
  invalid?: string;
  type?: "private" | "group" | "supergroup";
  title?: string;
  lastActivityAt?: number;
  effective: { provider: string; model: string; enabled: boolean };
}

export interface TaskRow {
  id: number;
  threadId: number | null;
  prompt: string;
  cron: string | null;
  timezone: string;
  status: "active" | "paused" | "done" | "cancelled";
  nextRunAt: number | null;
  lastRunAt: number | null;
  lastOutcome: "ok" | "error" | null;
}

/** `GET /admin/chats/:chatId/outbox`: what waits for Telegram in the chat's outbox. */
export interface OutboxView {
  chatId: number;
  waiting: number;
  oldestAt?: number;
  nextTryAt?: number;
  dropped?: { count: number; lastAt: number; reason: string };
  telegramRefused?: { at: number; description: string };
}

interface UsageSumRow {
  turns: number;
  inputTokens: number;
  outputTokens: number;
  toolCalls: number;
  costUsd: number;
}

export interface DailyUsage {
  since: string;
  days: (UsageSumRow & { day: string; provider: string; model: string })[];
}

export interface UsageReport {
  perChat: (UsageSumRow & { chatId: number })[];
  perModel: (UsageSumRow & { provider: string; model: string })[];
}

export interface ConfigView {
  chatId: number;
  config?: Record<string, unknown>;
  invalid?: string;
  effective: {
    provider: string;
    model: string;
    enabled: boolean;
    timezone: string;
    source: { provider: string; model: string };
  };
}

/**
 * The console's only way to read or change anything: the admin API's own Hono app, called in-process with the admin
 * bearer token, so every action runs the same validation and handlers as `curl` against `/admin/*`.
 */
export class AdminClient {
  constructor(
    private readonly app: Hono<{ Bindings: Env }>,
    private readonly env: Env,
    private readonly executionCtx: Parameters<Hono["request"]>[3],
    private readonly token: string,
  ) {}

  get<T>(path: string): Promise<AdminResult<T>> {
    return this.call<T>("GET", path);
  }

  async call<T>(method: string, path: string, body?: unknown): Promise<AdminResult<T>> {
    const headers = new Headers({ authorization: `Bearer ${this.token}` });
    if (body !== undefined) headers.set("content-type", "application/json");
    const response = await this.app.request(
      `http://admin.internal${path}`,
      { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) },
      this.env,
      this.executionCtx,
    );
    if (response.ok) {
      return { ok: true, data: response.status === 204 ? (undefined as T) : await response.json<T>() };
    }
    return { ok: false, status: response.status, error: await response.json<ErrorEnvelope>() };
  }
}

/** The field problems of a 400 from the admin API, by field path. */
export function fieldProblems(error: ErrorEnvelope): IssueDetail[] {
  return Array.isArray(error.details) ? (error.details as IssueDetail[]) : [];
}

/** `GET /admin/access`. */
export interface AccessView {
  pending: {
    code: string;
    chatId: number;
    type: string;
    title?: string;
    userName?: string;
    expiresAt: number;
  }[];
  chats: { chatId: number; title?: string; approvedAt: number; approvedBy: string }[];
  admins: { userId: number; name?: string; since: number }[];
  allowedChatIds: number[] | "*";
  adminUserIds: number[] | "*";
}

/** One skill of `GET /admin/(chats/:chatId/)skills?full=1`. */
interface SkillRow {
  name: string;
  description: string;
  always: boolean;
  enabled: boolean;
  chars: number;
  updatedAt: string;
  markdown: string;
}

/** `GET /admin/(chats/:chatId/)skills?full=1`. */
export interface SkillsView {
  skills: SkillRow[];
  totalChars: number;
  maxChars: number;
  maxTotalChars: number;
}

/** One fact of `GET /admin/people/:userId/memories` and `GET /admin/chats/:chatId/memories`. */
export interface MemoryRow {
  id: number;
  content: string;
  chatId: number;
  aboutUser: number | null;
  private: boolean;
  createdBy: number | null;
  createdAt: string;
  outside?: string;
  mergedFrom?: string;
}

/** One row of `GET /admin/people`. */
export interface PersonRow {
  userId: number;
  facts: number;
  lastAt: number;
}
