import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { drizzle } from "drizzle-orm/d1";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { AccessStore } from "../../access/access-store.ts";
import { approvePairing } from "../../access/approve.ts";
import { PAIRING_CODE, PairingStore } from "../../access/pairing-codes.ts";
import { type ChatConfig, chatConfigSchema, resolveConfig } from "../../config/chat-config.ts";
import { ChatConfigStore, type StoredConfig } from "../../config/config-store.ts";
import { settingsOf } from "../../config/settings.ts";
import { listChatDirectory } from "../../db/chat-directory.ts";
import { dailyUsage, usageReport } from "../../db/usage.ts";
import { chatStub } from "../../durable/chat-key.ts";
import type { Env } from "../../env.ts";
import { issueDetails } from "../../protocol/issues.ts";
import { changeTask, liveTasksOf } from "../../tasks/task-admin.ts";
import { TelegramClient } from "../../telegram/client.ts";
import { tools } from "../../tools/index.ts";
import { requireBearer, secretsEqual } from "../bearer.ts";
import { HttpError } from "../error.ts";

type AdminEnv = { Bindings: Env };

const configSchema = chatConfigSchema(tools.names).openapi("ChatConfig");
/** PATCH is a JSON merge patch: a field set to null is removed. */
const patchSchema = z
  .strictObject(
    Object.fromEntries(
      Object.entries(configSchema.shape).map(([key, field]) => [key, field.unwrap().nullable().optional()]),
    ),
  )
  .openapi("ChatConfigPatch");
/** A chat id as text: digits that name one number exactly (past 2^53 two ids would map to one key). */
const chatIdText = z
  .string()
  .regex(/^-?\d{1,16}$/, "must be a Telegram chat id")
  .refine((text) => Number.isSafeInteger(Number(text)), "must be a Telegram chat id (at most 2^53 - 1)");
const chatIdParam = z.object({
  chatId: chatIdText.openapi({ param: { name: "chatId", in: "path" }, example: "-1001234567890" }),
});
const errorSchema = z
  .object({ error: z.string(), message: z.string(), details: z.unknown().optional() })
  .openapi("Error");
const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});
const refusals = {
  400: json(errorSchema, "A bad body or parameter; `details` names each bad field"),
  401: json(errorSchema, "Missing or wrong bearer token"),
};

const security = [{ bearer: [] }];
const routes = {
  list: createRoute({
    method: "get",
    path: "/chats",
    security,
    responses: { 200: json(z.object({ chats: z.array(z.unknown()) }), "Configured chats"), ...refusals },
  }),
  get: createRoute({
    method: "get",
    path: "/chats/{chatId}/config",
    security,
    request: { params: chatIdParam, query: z.object({ effective: z.enum(["0", "1"]).optional() }) },
    responses: {
      200: json(z.unknown(), "The stored config, or with ?effective=1 also the resolved one"),
      404: json(errorSchema, "No config stored"),
      ...refusals,
    },
  }),
  put: createRoute({
    method: "put",
    path: "/chats/{chatId}/config",
    security,
    request: {
      params: chatIdParam,
      body: { content: { "application/json": { schema: configSchema } }, required: true },
    },
    responses: { 200: json(z.object({ config: configSchema }), "Replaced"), ...refusals },
  }),
  patch: createRoute({
    method: "patch",
    path: "/chats/{chatId}/config",
    security,
    request: {
      params: chatIdParam,
      body: { content: { "application/json": { schema: patchSchema } }, required: true },
    },
    responses: { 200: json(z.object({ config: configSchema }), "Merged"), ...refusals },
  }),
  delete: createRoute({
    method: "delete",
    path: "/chats/{chatId}/config",
    security,
    request: { params: chatIdParam },
    responses: { 204: { description: "Removed" }, 404: json(errorSchema, "No config stored"), ...refusals },
  }),
  tasks: createRoute({
    method: "get",
    path: "/chats/{chatId}/tasks",
    security,
    request: { params: chatIdParam },
    responses: {
      200: json(z.object({ tasks: z.array(z.unknown()) }), "The chat's active and paused tasks"),
      ...refusals,
    },
  }),
  taskAction: createRoute({
    method: "post",
    path: "/chats/{chatId}/tasks/{taskId}/{action}",
    security,
    request: {
      params: chatIdParam.extend({
        taskId: z.coerce
          .number()
          .int()
          .positive()
          .openapi({ param: { name: "taskId", in: "path" } }),
        action: z.enum(["pause", "resume", "cancel"]).openapi({ param: { name: "action", in: "path" } }),
      }),
    },
    responses: {
      200: json(z.object({ task: z.unknown() }), "The task as it is now"),
      404: json(errorSchema, "No such task in this chat"),
      409: json(errorSchema, "The task is not in a state the action applies to"),
      ...refusals,
    },
  }),
  dailyUsage: createRoute({
    method: "get",
    path: "/usage/daily",
    security,
    request: {
      query: z.object({
        chatId: chatIdText.optional(),
        days: z.coerce.number().int().min(1).max(366).optional(),
      }),
    },
    responses: { 200: json(z.unknown(), "Token use and cost per UTC day and per model"), ...refusals },
  }),
  access: createRoute({
    method: "get",
    path: "/access",
    security,
    responses: {
      200: json(z.unknown(), "Chats waiting with a pairing code, chats approved by pairing, stored admins"),
      ...refusals,
    },
  }),
  approve: createRoute({
    method: "post",
    path: "/access/pairings/{code}/approve",
    security,
    request: {
      params: z.object({
        code: z
          .string()
          .regex(PAIRING_CODE, "must be a code like ABCD-EFGH")
          .openapi({ param: { name: "code", in: "path" } }),
      }),
    },
    responses: {
      200: json(z.object({ approved: z.unknown() }), "The chat may talk to the bot now"),
      404: json(errorSchema, "No chat is waiting with this code (or it expired)"),
      ...refusals,
    },
  }),
  revokeChat: createRoute({
    method: "delete",
    path: "/access/chats/{chatId}",
    security,
    request: { params: chatIdParam },
    responses: {
      204: { description: "Revoked" },
      404: json(errorSchema, "Not a chat approved by pairing"),
      ...refusals,
    },
  }),
  removeAdmin: createRoute({
    method: "delete",
    path: "/access/admins/{userId}",
    security,
    request: { params: z.object({ userId: chatIdText.openapi({ param: { name: "userId", in: "path" } }) }) },
    responses: {
      204: { description: "Removed" },
      404: json(errorSchema, "Not an admin stored by pairing"),
      ...refusals,
    },
  }),
  usage: createRoute({
    method: "get",
    path: "/usage",
    security,
    request: {
      query: z.object({
        chatId: chatIdText.optional(),
      }),
    },
    responses: { 200: json(z.unknown(), "Token use per chat and per model"), ...refusals },
  }),
};

/**
 * `/admin/*`: per-chat config in KV and usage sums, behind `Authorization: Bearer <ADMIN_TOKEN>`. Without
 * ADMIN_TOKEN the routes do not exist (404). Bodies are validated whole before anything is written.
 */
export function adminRoutes(): OpenAPIHono<AdminEnv> {
  const admin = new OpenAPIHono<AdminEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const details = issueDetails(result.error);
        throw new HttpError(
          400,
          "invalid_request",
          `Invalid ${details.map((detail) => detail.field).join(", ")}`,
          details,
        );
      }
    },
  });
  admin.use("*", requireAdminTokenSet, requireBearer<AdminEnv>(adminTokenMatches));
  admin.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer" });

  admin.openapi(routes.list, async (c) => {
    const [configured, directory] = await Promise.all([store(c.env).list(), listChatDirectory(drizzle(c.env.DB))]);
    const settings = settingsOf(c.env);
    const known = new Map(directory.map((entry) => [entry.chatId, entry]));
    const ids = [...new Set([...configured.map((chat) => chat.chatId), ...known.keys()])].sort((a, b) => a - b);
    const stored = new Map(configured.map((chat) => [chat.chatId, chat.stored]));
    const chats = ids.map((chatId) => {
      const config = stored.get(chatId) ?? { state: "none" as const };
      const entry = known.get(chatId);
      const effective = resolveConfig(config.state === "valid" ? config.config : undefined, settings);
      return {
        chatId,
        ...describe(config),
        ...(entry
          ? { type: entry.type, ...(entry.title ? { title: entry.title } : {}), lastActivityAt: entry.lastActivityAt }
          : {}),
        effective: { provider: effective.provider, model: effective.model, enabled: effective.enabled },
      };
    });
    return c.json({ chats }, 200);
  });

  admin.openapi(routes.get, async (c) => {
    const chatId = Number(c.req.valid("param").chatId);
    const stored = await store(c.env).get(chatId);
    if (c.req.valid("query").effective === "1") {
      const effective = resolveConfig(stored.state === "valid" ? stored.config : undefined, settingsOf(c.env));
      return c.json({ chatId, ...describe(stored), effective }, 200);
    }
    if (stored.state === "none") throw new HttpError(404, "not_found", `No config is stored for chat ${chatId}.`);
    return c.json({ chatId, ...describe(stored) }, 200);
  });

  admin.openapi(routes.put, async (c) => {
    const chatId = Number(c.req.valid("param").chatId);
    const config = c.req.valid("json");
    await store(c.env).put(chatId, config);
    await tellChat(c.env, chatId, { state: "valid", config });
    return c.json({ config }, 200);
  });

  admin.openapi(routes.patch, async (c) => {
    const chatId = Number(c.req.valid("param").chatId);
    const patch = c.req.valid("json") as Record<string, unknown>;
    const configs = store(c.env);
    const stored = await configs.get(chatId);
    const merged: Record<string, unknown> = { ...(stored.state === "valid" ? stored.config : {}) };
    for (const [key, value] of Object.entries(patch)) {
      if (value === null) delete merged[key];
      else if (value !== undefined) merged[key] = value;
    }
    const config = configSchema.parse(merged) as ChatConfig;
    await configs.put(chatId, config);
    await tellChat(c.env, chatId, { state: "valid", config });
    return c.json({ config }, 200);
  });

  admin.openapi(routes.delete, async (c) => {
    const chatId = Number(c.req.valid("param").chatId);
    const configs = store(c.env);
    if ((await configs.get(chatId)).state === "none")
      throw new HttpError(404, "not_found", `No config is stored for chat ${chatId}.`);
    await configs.delete(chatId);
    await tellChat(c.env, chatId, { state: "none" });
    return c.body(null, 204);
  });

  admin.openapi(routes.tasks, async (c) => {
    const chatId = Number(c.req.valid("param").chatId);
    return c.json({ tasks: await liveTasksOf(drizzle(c.env.DB), chatId) }, 200);
  });

  admin.openapi(routes.taskAction, async (c) => {
    const { chatId: chatIdText, taskId, action } = c.req.valid("param");
    const chatId = Number(chatIdText);
    const result = await changeTask(drizzle(c.env.DB), { chatId, taskId, action, now: Date.now() });
    switch (result.kind) {
      case "not_found":
        throw new HttpError(404, "not_found", `Chat ${chatId} has no task #${taskId}.`);
      case "refused":
        throw new HttpError(409, "conflict", result.reason);
      case "changed": {
        const { task } = result;
        await chatStub(c.env, { chatId, ...(task.threadId === null ? {} : { threadId: task.threadId }) })
          .tasksChanged(chatId, task.threadId ?? undefined)
          .catch((error: unknown) =>
            console.warn(
              `chat ${chatId}: could not hand over its tasks`,
              error instanceof Error ? error.message : error,
            ),
          );
        return c.json({ task }, 200);
      }
    }
  });

  admin.openapi(routes.dailyUsage, async (c) => {
    const { chatId, days } = c.req.valid("query");
    const report = await dailyUsage(drizzle(c.env.DB), {
      chatId: chatId === undefined ? undefined : Number(chatId),
      days: days ?? 30,
      now: Date.now(),
    });
    return c.json(report, 200);
  });

  admin.openapi(routes.access, async (c) => {
    const now = Date.now();
    const [record, pending] = await Promise.all([
      new AccessStore(c.env.CONFIG).read(),
      new PairingStore(c.env.CONFIG).pending(now),
    ]);
    const settings = settingsOf(c.env);
    const listed = (ids: typeof settings.allowedChats) => (ids.kind === "everyone" ? "*" : [...ids.ids]);
    return c.json(
      {
        pending,
        chats: Object.entries(record.chats).map(([chatId, entry]) => ({ chatId: Number(chatId), ...entry })),
        admins: Object.entries(record.admins).map(([userId, entry]) => ({ userId: Number(userId), ...entry })),
        allowedChatIds: listed(settings.allowedChats),
        adminUserIds: listed(settings.adminUserIds),
      },
      200,
    );
  });

  admin.openapi(routes.approve, async (c) => {
    const { code } = c.req.valid("param");
    const settings = settingsOf(c.env);
    const result = await approvePairing({
      kv: c.env.CONFIG,
      telegram: settings.botToken
        ? new TelegramClient({ botToken: settings.botToken, apiBaseUrl: settings.telegramApiBaseUrl })
        : undefined,
      code,
      approvedBy: "admin API",
      now: Date.now(),
    });
    if (result.kind === "not_found") {
      throw new HttpError(
        404,
        "not_found",
        `No chat is waiting with the code ${code} (codes expire after 10 minutes).`,
      );
    }
    return c.json({ approved: result.pairing }, 200);
  });

  admin.openapi(routes.revokeChat, async (c) => {
    const chatId = Number(c.req.valid("param").chatId);
    if (!(await new AccessStore(c.env.CONFIG).revokeChat(chatId))) {
      throw new HttpError(
        404,
        "not_found",
        `Chat ${chatId} was not approved by pairing (ALLOWED_CHAT_IDS is set in wrangler.toml).`,
      );
    }
    return c.body(null, 204);
  });

  admin.openapi(routes.removeAdmin, async (c) => {
    const userId = Number(c.req.valid("param").userId);
    if (!(await new AccessStore(c.env.CONFIG).removeAdmin(userId))) {
      throw new HttpError(404, "not_found", `User ${userId} is not an admin stored by pairing.`);
    }
    return c.body(null, 204);
  });

  admin.openapi(routes.usage, async (c) => {
    const chatId = c.req.valid("query").chatId;
    return c.json(await usageReport(drizzle(c.env.DB), chatId === undefined ? undefined : Number(chatId)), 200);
  });

  admin.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: { title: "Telegram edge agent: admin API", version: "1.0.0" },
  });
  return admin;
}

/** Without ADMIN_TOKEN the admin routes do not exist. */
const requireAdminTokenSet = createMiddleware<AdminEnv>(async (c, next) => {
  if (!settingsOf(c.env).adminToken) throw new HttpError(404, "not_found", "Not found.");
  await next();
});

async function adminTokenMatches(presented: string, c: Context<AdminEnv>): Promise<boolean> {
  const expected = settingsOf(c.env).adminToken;
  return expected !== undefined && (await secretsEqual(presented, expected));
}

/**
 * Hands the new config to the chat's object, so its next turn uses it even before KV shows the change there. Forum
 * topics have objects of their own; they read KV again within a minute. The KV write already happened: a failure
 * here only delays the change.
 */
async function tellChat(env: Env, chatId: number, stored: StoredConfig): Promise<void> {
  try {
    await chatStub(env, { chatId }).configChanged(chatId, stored);
  } catch (error) {
    console.warn(`chat ${chatId}: could not hand over its new config`, error instanceof Error ? error.message : error);
  }
}

function store(env: Env): ChatConfigStore {
  return new ChatConfigStore(env.CONFIG, tools.names);
}

function describe(stored: StoredConfig): { config?: ChatConfig; invalid?: string } {
  if (stored.state === "valid") return { config: stored.config };
  if (stored.state === "invalid") return { invalid: stored.problem };
  return {};
}
