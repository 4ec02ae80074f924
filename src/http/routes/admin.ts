import { drizzle } from "drizzle-orm/d1";
import { type Context, Hono } from "hono";
import { createMiddleware } from "hono/factory";
import * as z from "zod";
import { type ChatConfig, chatConfigSchema, resolveConfig } from "../../config/chat-config.ts";
import { ChatConfigStore, type StoredConfig } from "../../config/config-store.ts";
import { settingsOf } from "../../config/settings.ts";
import { usageReport } from "../../db/usage.ts";
import { chatStub } from "../../durable/chat-key.ts";
import type { Env } from "../../env.ts";
import { tools } from "../../tools/index.ts";
import { requireBearer, secretsEqual } from "../bearer.ts";
import { HttpError } from "../error.ts";
import { jsonBody } from "../json-body.ts";
import { validInput } from "../valid-input.ts";
import { adminOpenApiDocument } from "./admin-openapi.ts";

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

/**
 * `/admin/*`: per-chat config in KV and usage sums, behind `Authorization: Bearer <ADMIN_TOKEN>`. Without
 * ADMIN_TOKEN the routes do not exist (404). Bodies are validated whole before anything is written. The OpenAPI
 * document at `/admin/openapi.json` is generated from the same zod schemas (admin-openapi.ts).
 */
export function adminRoutes(): Hono<AdminEnv> {
  const admin = new Hono<AdminEnv>();
  admin.use("*", requireAdminTokenSet, requireBearer<AdminEnv>(adminTokenMatches));

  admin.get("/chats", async (c) => {
    const chats = await store(c.env).list();
    return c.json({ chats: chats.map(({ chatId, stored }) => ({ chatId, ...describe(stored) })) }, 200);
  });

  admin.get("/chats/:chatId/config", async (c) => {
    const chatId = chatIdOf(c);
    const { effective } = validInput(configQuery, c.req.query(), "query");
    const stored = await store(c.env).get(chatId);
    if (effective === "1") {
      const resolved = resolveConfig(stored.state === "valid" ? stored.config : undefined, settingsOf(c.env));
      return c.json({ chatId, ...describe(stored), effective: resolved }, 200);
    }
    if (stored.state === "none") throw new HttpError(404, "not_found", `No config is stored for chat ${chatId}.`);
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
      throw new HttpError(404, "not_found", `No config is stored for chat ${chatId}.`);
    await configs.delete(chatId);
    await tellChat(c.env, chatId, { state: "none" });
    return c.body(null, 204);
  });

  admin.get("/usage", async (c) => {
    const { chatId } = validInput(usageQuery, c.req.query(), "query");
    return c.json(await usageReport(drizzle(c.env.DB), chatId === undefined ? undefined : Number(chatId)), 200);
  });

  admin.get("/openapi.json", (c) =>
    c.json(adminOpenApiDocument({ config: configSchema, patch: patchSchema, chatId: chatIdText })),
  );
  return admin;
}

function chatIdOf(c: Context<AdminEnv>): number {
  return Number(validInput(chatIdParam, c.req.param(), "path").chatId);
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
