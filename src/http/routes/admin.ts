import { drizzle } from "drizzle-orm/d1";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { Hono } from "hono/tiny";
import * as z from "zod";
import { AccessStore } from "../../access/access-store.ts";
import { approvePairing } from "../../access/approve.ts";
import { PAIRING_CODE, PairingStore } from "../../access/pairing-codes.ts";
import { type ChatConfig, chatConfigSchema, resolveConfig } from "../../config/chat-config.ts";
import { ChatConfigStore, type StoredConfig } from "../../config/config-store.ts";
import { settingsOf } from "../../config/loaded-settings.ts";
import { listChatDirectory } from "../../db/chat-directory.ts";
import { dailyUsage, usageReport } from "../../db/usage.ts";
import { secretsOf } from "../../durable/bindings.ts";
import { chatStub } from "../../durable/chat-key.ts";
import type { Env } from "../../env.ts";
import { errorText } from "../../lib/errors.ts";
import { describeMcpServers } from "../../mcp/describe.ts";
import { requireBearer, secretsEqual } from "../../protocol/http/bearer.ts";
import { HttpError } from "../../protocol/http/error.ts";
import { jsonBody } from "../../protocol/http/json-body.ts";
import { TaskRepository } from "../../tasks/task-repository.ts";
import { TelegramClient } from "../../telegram/client.ts";
import { tools } from "../../tools/index.ts";
import { validInput } from "../valid-input.ts";
import { clientOf, countWrongTry, isBlocked } from "../wrong-tries.ts";
import { adminOpenApiDocument } from "./admin-openapi.ts";
import { adminPeopleRoutes } from "./admin-people.ts";
import { adminSettingsRoutes, settingsPatchSchema } from "./admin-settings.ts";
import { adminSkillsRoutes, skillPatchSchema, skillUploadSchema } from "./admin-skills.ts";

type AdminEnv = { Bindings: Env };

const MAX_BODY_BYTES = 64 * 1024;

const configSchema = chatConfigSchema(tools.names);
/** PATCH is a JSON merge patch: a field set to null is removed. */
const patchSchema = z.strictObject(
  Object.fromEntries(
    Object.entries(configSchema.shape).map(([key, field]) => [key, field.unwrap().nullable().optional()]),
  ),
);
/** A chat id as text: digits that name one number exactly (past 2^53 two ids would map to one key). */
const chatIdText = z
  .string()
  .regex(/^-?\d{1,16}$/, "must be a Telegram chat id")
  .refine((text) => Number.isSafeInteger(Number(text)), "must be a Telegram chat id (at most 2^53 - 1)");
const chatIdParam = z.object({ chatId: chatIdText });
const configQuery = z.object({ effective: z.enum(["0", "1"]).optional() });
const usageQuery = z.object({ chatId: chatIdText.optional() });
const mcpQuery = z.object({ refresh: z.enum(["0", "1"]).optional() });
const dailyUsageQuery = z.object({
  chatId: chatIdText.optional(),
  days: z.coerce.number().int().min(1).max(366).optional(),
});
const taskActionParam = chatIdParam.extend({
  taskId: z.coerce.number().int().positive(),
  action: z.enum(["pause", "resume", "cancel"]),
});
const pairingCodeParam = z.object({ code: z.string().regex(PAIRING_CODE, "must be a code like ABCD-EFGH") });
const userIdParam = z.object({ userId: chatIdText });

/**
 * `/admin/*`: per-chat config in KV and usage sums, behind `Authorization: Bearer <ADMIN_TOKEN>`. Without
 * ADMIN_TOKEN the routes do not exist (404). Bodies are validated whole before anything is written. The OpenAPI
 * document at `/admin/openapi.json` is generated from the same zod schemas (admin-openapi.ts).
 */
export function adminRoutes(): Hono<AdminEnv> {
  const admin = new Hono<AdminEnv>();
  admin.use("*", requireAdminTokenSet, refuseGuessers, requireBearer<AdminEnv>(adminTokenMatches));

  chatConfigRoutes(admin);
  chatStateRoutes(admin);
  accessAndUsageRoutes(admin);

  admin.route("/", adminSkillsRoutes());
  admin.route("/", adminSettingsRoutes());
  admin.route("/", adminPeopleRoutes());

  admin.get("/openapi.json", (c) =>
    c.json(
      adminOpenApiDocument({
        config: configSchema,
        patch: patchSchema,
        chatId: chatIdText,
        pairingCode: pairingCodeParam.shape.code,
        skillUpload: skillUploadSchema,
        skillPatch: skillPatchSchema,
        settingsPatch: settingsPatchSchema,
      }),
    ),
  );
  return admin;
}

/** The chats and their stored configs: list, read, replace, patch, delete. */
function chatConfigRoutes(admin: Hono<AdminEnv>): void {
  admin.get("/chats", async (c) => {
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

  admin.get("/chats/:chatId/config", async (c) => {
    const chatId = chatIdOf(c);
    const { effective } = validInput(configQuery, c.req.query(), "query");
    const stored = await store(c.env).get(chatId);
    if (effective === "1") {
      const resolved = resolveConfig(stored.state === "valid" ? stored.config : undefined, settingsOf(c.env));
      return c.json({ chatId, ...describe(stored), effective: resolved }, 200);
    }
    if (stored.state === "none")
      throw new HttpError(404, { code: "not_found", message: `No config is stored for chat ${chatId}.` });
    return c.json({ chatId, ...describe(stored) }, 200);
  });

  admin.put("/chats/:chatId/config", jsonBody(configSchema, { maxBytes: MAX_BODY_BYTES }), async (c) => {
    const chatId = chatIdOf(c);
    const config = c.req.valid("json");
    await store(c.env).put(chatId, config);
    await tellChat(c.env, chatId, { state: "valid", config });
    return c.json({ config }, 200);
  });

  admin.patch("/chats/:chatId/config", jsonBody(patchSchema, { maxBytes: MAX_BODY_BYTES }), async (c) => {
    const chatId = chatIdOf(c);
    const configs = store(c.env);
    const stored = await configs.get(chatId);
    const merged: Record<string, unknown> = { ...(stored.state === "valid" ? stored.config : {}) };
    for (const [key, value] of Object.entries(c.req.valid("json"))) {
      if (value === null) delete merged[key];
      else if (value !== undefined) merged[key] = value;
    }
    const config = validInput(configSchema, merged, "body");
    await configs.put(chatId, config);
    await tellChat(c.env, chatId, { state: "valid", config });
    return c.json({ config }, 200);
  });

  admin.delete("/chats/:chatId/config", async (c) => {
    const chatId = chatIdOf(c);
    const configs = store(c.env);
    if ((await configs.get(chatId)).state === "none")
      throw new HttpError(404, { code: "not_found", message: `No config is stored for chat ${chatId}.` });
    await configs.delete(chatId);
    await tellChat(c.env, chatId, { state: "none" });
    return c.body(null, 204);
  });
}

/** A chat's MCP servers, outbox and scheduled tasks. */
function chatStateRoutes(admin: Hono<AdminEnv>): void {
  admin.get("/chats/:chatId/mcp", async (c) => {
    const chatId = chatIdOf(c);
    const { refresh } = validInput(mcpQuery, c.req.query(), "query");
    const stored = await store(c.env).get(chatId);
    const settings = settingsOf(c.env);
    const config = resolveConfig(stored.state === "valid" ? stored.config : undefined, settings);
    return c.json(
      {
        chatId,
        servers: await describeMcpServers(config, { secrets: secretsOf(c.env), settings, refresh: refresh === "1" }),
      },
      200,
    );
  });

  // What waits in the chat's outbox for Telegram (its main object: a forum topic's own outbox is not listed here).
  admin.get("/chats/:chatId/outbox", async (c) => {
    const chatId = chatIdOf(c);
    return c.json({ chatId, ...(await chatStub(c.env, { chatId }).outboxState()) }, 200);
  });

  admin.get("/chats/:chatId/tasks", async (c) => {
    const chatId = chatIdOf(c);
    return c.json({ tasks: await new TaskRepository(drizzle(c.env.DB)).liveOf(chatId) }, 200);
  });

  admin.post("/chats/:chatId/tasks/:taskId/:action", async (c) => {
    const { chatId: chatIdText, taskId, action } = validInput(taskActionParam, c.req.param(), "path");
    const chatId = Number(chatIdText);
    const result = await new TaskRepository(drizzle(c.env.DB)).change({
      owner: { chatId, withCreated: false },
      taskId,
      action,
      now: Date.now(),
    });
    switch (result.kind) {
      case "not_found":
        throw new HttpError(404, { code: "not_found", message: `Chat ${chatId} has no task #${taskId}.` });
      case "refused":
        throw new HttpError(409, { code: "conflict", message: result.reason });
      case "changed": {
        const { task } = result;
        await chatStub(c.env, { chatId, ...(task.threadId === null ? {} : { threadId: task.threadId }) })
          .tasksChanged(chatId, task.threadId ?? undefined)
          .catch((error: unknown) => console.warn(`chat ${chatId}: could not hand over its tasks`, errorText(error)));
        return c.json({ task }, 200);
      }
    }
  });
}

/** Who may talk to the bot (pairing), and what the chats used. */
function accessAndUsageRoutes(admin: Hono<AdminEnv>): void {
  admin.get("/usage/daily", async (c) => {
    const { chatId, days } = validInput(dailyUsageQuery, c.req.query(), "query");
    const report = await dailyUsage(drizzle(c.env.DB), {
      chatId: chatId === undefined ? undefined : Number(chatId),
      days: days ?? 30,
      now: Date.now(),
    });
    return c.json(report, 200);
  });

  admin.get("/access", async (c) => {
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

  admin.post("/access/pairings/:code/approve", async (c) => {
    const { code } = validInput(pairingCodeParam, c.req.param(), "path");
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
      throw new HttpError(404, {
        code: "not_found",
        message: `No chat is waiting with the code ${code} (codes expire after 10 minutes).`,
      });
    }
    return c.json({ approved: result.pairing }, 200);
  });

  admin.delete("/access/chats/:chatId", async (c) => {
    const chatId = chatIdOf(c);
    if (!(await new AccessStore(c.env.CONFIG).revokeChat(chatId))) {
      throw new HttpError(404, {
        code: "not_found",
        message: `Chat ${chatId} was not approved by pairing (ALLOWED_CHAT_IDS is set in wrangler.toml).`,
      });
    }
    return c.body(null, 204);
  });

  admin.delete("/access/admins/:userId", async (c) => {
    const userId = Number(validInput(userIdParam, c.req.param(), "path").userId);
    if (!(await new AccessStore(c.env.CONFIG).removeAdmin(userId))) {
      throw new HttpError(404, { code: "not_found", message: `User ${userId} is not an admin stored by pairing.` });
    }
    return c.body(null, 204);
  });

  admin.get("/usage", async (c) => {
    const { chatId } = validInput(usageQuery, c.req.query(), "query");
    return c.json(await usageReport(drizzle(c.env.DB), chatId === undefined ? undefined : Number(chatId)), 200);
  });
}

function chatIdOf(c: Context<AdminEnv>): number {
  return Number(validInput(chatIdParam, c.req.param(), "path").chatId);
}

/** Without ADMIN_TOKEN the admin routes do not exist. */
const requireAdminTokenSet = createMiddleware<AdminEnv>(async (c, next) => {
  if (!settingsOf(c.env).adminToken) throw new HttpError(404, { code: "not_found", message: "Not found." });
  await next();
});

/** A client that made too many wrong tries is refused for a while before its token is even compared. */
const refuseGuessers = createMiddleware<AdminEnv>(async (c, next) => {
  if (isBlocked(clientOf(c.req.raw))) {
    throw new HttpError(429, { code: "too_many_tries", message: "Too many wrong tokens; try again in a minute." });
  }
  await next();
});

async function adminTokenMatches(presented: string, c: Context<AdminEnv>): Promise<boolean> {
  const expected = settingsOf(c.env).adminToken;
  const matches = expected !== undefined && (await secretsEqual(presented, expected));
  if (!matches) await countWrongTry(c.env, clientOf(c.req.raw));
  return matches;
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
    console.warn(`chat ${chatId}: could not hand over its new config`, errorText(error));
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
