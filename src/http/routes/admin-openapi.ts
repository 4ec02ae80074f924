import * as z from "zod";
import { peoplePaths } from "./admin-people-openapi.ts";

interface AdminSchemas {
  config: z.ZodType;
  patch: z.ZodType;
  chatId: z.ZodType;
  pairingCode: z.ZodType;
  skillUpload: z.ZodType;
  skillPatch: z.ZodType;
  settingsPatch: z.ZodType;
}

/**
 * The admin API's OpenAPI 3.1 document, built from the zod schemas the routes validate with (zod's own JSON Schema
 * output), so the two cannot drift. Hand-listed paths: a dozen routes do not earn a routing layer of their own
 * (@hono/zod-openapi cost the Worker about 40 KiB of bundle and pulled every zod locale in).
 */
export function adminOpenApiDocument(schemas: AdminSchemas): object {
  const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
  const json = (schema: object, description: string) => ({
    description,
    content: { "application/json": { schema } },
  });
  const refusals = {
    400: json({ $ref: "#/components/schemas/Error" }, "A bad body or parameter; `details` names each bad field"),
    401: json({ $ref: "#/components/schemas/Error" }, "Missing or wrong bearer token"),
  };
  const chatIdParameter = { name: "chatId", in: "path", required: true, schema: jsonSchema(schemas.chatId) };
  const config = { $ref: "#/components/schemas/ChatConfig" };
  const notFound = json({ $ref: "#/components/schemas/Error" }, "No config stored");
  const body = (schema: object) => ({ required: true, content: { "application/json": { schema } } });
  const skillPaths = skillsPaths({ json, body, refusals });
  const parts: PathParts = { schemas, jsonSchema, json, body, refusals, chatIdParameter };
  return {
    openapi: "3.1.0",
    info: { title: "Telegram edge agent: admin API", version: "1.0.0" },
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: {
        ChatConfig: jsonSchema(schemas.config),
        ChatConfigPatch: jsonSchema(schemas.patch),
        SkillUpload: jsonSchema(schemas.skillUpload),
        SkillPatch: jsonSchema(schemas.skillPatch),
        SettingsPatch: jsonSchema(schemas.settingsPatch),
        ...SHARED_SCHEMAS,
      },
    },
    paths: {
      "/settings": {
        get: {
          responses: { 200: json({ type: "object" }, "Every knob: kind, default, rule, source, value"), ...refusals },
        },
        patch: {
          description:
            "Changes the console's settings (kind `setting` only); null or an empty string removes one. In force within a minute everywhere, no redeploy",
          requestBody: body({ $ref: "#/components/schemas/SettingsPatch" }),
          responses: { 200: json({ type: "object" }, "The settings after the change"), ...refusals },
        },
      },
      "/chats": { get: { responses: { 200: json({ type: "object" }, "Configured chats"), ...refusals } } },
      "/chats/{chatId}/config": {
        parameters: [chatIdParameter],
        get: {
          parameters: [{ name: "effective", in: "query", schema: { enum: ["0", "1"] } }],
          responses: {
            200: json({ type: "object" }, "The stored config, or with ?effective=1 also the resolved one"),
            404: notFound,
            ...refusals,
          },
        },
        put: { requestBody: body(config), responses: { 200: json(config, "Replaced"), ...refusals } },
        patch: {
          requestBody: body({ $ref: "#/components/schemas/ChatConfigPatch" }),
          responses: { 200: json(config, "Merged"), ...refusals },
        },
        delete: { responses: { 204: { description: "Removed" }, 404: notFound, ...refusals } },
      },
      "/skills": skillPaths.list,
      "/skills/{name}": skillPaths.one,
      "/chats/{chatId}/skills": { parameters: [chatIdParameter], ...skillPaths.list },
      "/chats/{chatId}/skills/{name}": {
        ...skillPaths.one,
        parameters: [chatIdParameter, ...skillPaths.one.parameters],
      },
      "/chats/{chatId}/mcp": {
        parameters: [chatIdParameter],
        get: {
          parameters: [{ name: "refresh", in: "query", schema: { enum: ["0", "1"] } }],
          responses: {
            200: json(
              { $ref: "#/components/schemas/McpServers" },
              "The chat's MCP servers, each listed now or from the cache (refresh=1: now); header names, never values",
            ),
            ...refusals,
          },
        },
      },
      ...chatStatePaths(parts),
      ...accessPaths(parts),
    },
  };
}

/** The schemas of responses no route validates (they are the routes' own output). */
const SHARED_SCHEMAS = {
  Skill: {
    type: "object",
    required: ["name", "description", "always", "enabled", "chars", "updatedAt"],
    properties: {
      name: { type: "string" },
      description: { type: "string" },
      always: {
        type: "boolean",
        description: "Given whole in the system prompt; else listed and read on demand",
      },
      enabled: { type: "boolean" },
      chars: { type: "integer", description: "Description and instructions, counted against the caps" },
      updatedAt: { type: "string", format: "date-time" },
      body: { type: "string", description: "The instructions (reading one skill only)" },
      markdown: { type: "string", description: "The skill as a file (reading one skill only)" },
    },
  },
  McpServers: {
    type: "object",
    required: ["chatId", "servers"],
    properties: {
      chatId: { type: "integer" },
      servers: {
        type: "array",
        items: {
          type: "object",
          required: ["name", "url", "headers", "state"],
          properties: {
            name: { type: "string" },
            url: { type: "string" },
            headers: { type: "array", items: { type: "string" } },
            state: { enum: ["ok", "unavailable"] },
            problem: { type: "string" },
            listedAt: { type: "string", format: "date-time" },
            tools: {
              type: "array",
              items: {
                type: "object",
                properties: {
                  name: { type: "string" },
                  description: { type: "string" },
                  inputSchema: { type: "object" },
                  allowed: { type: "boolean" },
                },
              },
            },
            skipped: { type: "array", items: { type: "object" } },
          },
        },
      },
    },
  },
  Error: {
    type: "object",
    required: ["error", "message"],
    properties: { error: { type: "string" }, message: { type: "string" }, details: {} },
  },
};

/** What every part of the document is built with. */
interface PathParts {
  schemas: AdminSchemas;
  jsonSchema: (schema: z.ZodType) => object;
  json: (schema: object, description: string) => object;
  body: (schema: object) => object;
  refusals: object;
  chatIdParameter: object;
}

/** A chat's outbox, tasks and daily usage. */
function chatStatePaths(parts: PathParts) {
  const { schemas, jsonSchema, json, refusals, chatIdParameter } = parts;
  return {
    "/chats/{chatId}/outbox": {
      parameters: [chatIdParameter],
      get: {
        responses: {
          200: json(
            {
              type: "object",
              required: ["chatId", "waiting"],
              properties: {
                chatId: { type: "integer" },
                waiting: { type: "integer", description: "Messages waiting for Telegram in the chat's outbox" },
                oldestAt: { type: "integer", description: "When the oldest was made (epoch ms)" },
                nextTryAt: { type: "integer", description: "When the next try is (epoch ms)" },
                dropped: {
                  type: "object",
                  description: "Messages given up (past OUTBOX_MAX_HOURS, or refused): count, last time, reason",
                },
                telegramRefused: {
                  type: "object",
                  description: "Telegram's last refusal of a message here (blocked, chat not found…): time, words",
                },
              },
            },
            "What waits for Telegram in the chat's outbox",
          ),
          ...refusals,
        },
      },
    },
    "/chats/{chatId}/tasks": {
      parameters: [chatIdParameter],
      get: { responses: { 200: json({ type: "object" }, "The chat's active and paused tasks"), ...refusals } },
    },
    "/chats/{chatId}/tasks/{taskId}/{action}": {
      parameters: [
        chatIdParameter,
        { name: "taskId", in: "path", required: true, schema: { type: "integer", minimum: 1 } },
        { name: "action", in: "path", required: true, schema: { enum: ["pause", "resume", "cancel"] } },
      ],
      post: {
        responses: {
          200: json({ type: "object" }, "The task as it is now"),
          404: json({ $ref: "#/components/schemas/Error" }, "No such task in this chat"),
          409: json({ $ref: "#/components/schemas/Error" }, "The task is not in a state the action applies to"),
          ...refusals,
        },
      },
    },
    "/usage/daily": {
      get: {
        parameters: [
          { name: "chatId", in: "query", schema: jsonSchema(schemas.chatId) },
          { name: "days", in: "query", schema: { type: "integer", minimum: 1, maximum: 366 } },
        ],
        responses: { 200: json({ type: "object" }, "Token use and cost per UTC day and per model"), ...refusals },
      },
    },
  };
}

/** Who may talk to the bot, and the totals of usage. */
function accessPaths(parts: PathParts) {
  const { schemas, jsonSchema, json, refusals, chatIdParameter } = parts;
  return {
    "/access": {
      get: {
        responses: {
          200: json({ type: "object" }, "Chats waiting with a pairing code, chats approved by pairing, stored admins"),
          ...refusals,
        },
      },
    },
    "/access/pairings/{code}/approve": {
      parameters: [{ name: "code", in: "path", required: true, schema: jsonSchema(schemas.pairingCode) }],
      post: {
        responses: {
          200: json({ type: "object" }, "The chat may talk to the bot now"),
          404: json({ $ref: "#/components/schemas/Error" }, "No chat is waiting with this code (or it expired)"),
          ...refusals,
        },
      },
    },
    "/access/chats/{chatId}": {
      parameters: [chatIdParameter],
      delete: {
        responses: {
          204: { description: "Revoked" },
          404: json({ $ref: "#/components/schemas/Error" }, "Not a chat approved by pairing"),
          ...refusals,
        },
      },
    },
    "/access/admins/{userId}": {
      parameters: [{ name: "userId", in: "path", required: true, schema: jsonSchema(schemas.chatId) }],
      delete: {
        responses: {
          204: { description: "Removed" },
          404: json({ $ref: "#/components/schemas/Error" }, "Not an admin stored by pairing"),
          ...refusals,
        },
      },
    },
    "/usage": {
      get: {
        parameters: [{ name: "chatId", in: "query", schema: jsonSchema(schemas.chatId) }],
        responses: { 200: json({ type: "object" }, "Token use per chat and per model"), ...refusals },
      },
    },
    ...peoplePaths({ json, refusals, chatIdParameter }),
  };
}

/** The skills routes, the same for the bot's (`/skills`) and a chat's (`/chats/{chatId}/skills`). */
function skillsPaths(parts: {
  json: (schema: object, description: string) => object;
  body: (schema: object) => object;
  refusals: object;
}) {
  const { json, body, refusals } = parts;
  const skill = { $ref: "#/components/schemas/Skill" };
  const error = (description: string) => json({ $ref: "#/components/schemas/Error" }, description);
  const one = json({ type: "object", properties: { skill } }, "The skill");
  const notFound = error("No skill of that name");
  return {
    list: {
      get: {
        parameters: [
          { name: "full", in: "query", schema: { enum: ["0", "1"] }, description: "1: with body and markdown" },
        ],
        responses: {
          200: json(
            {
              type: "object",
              properties: { skills: { type: "array", items: skill }, totalChars: {}, maxTotalChars: {} },
            },
            "The skills, with their total size and the caps",
          ),
          ...refusals,
        },
      },
      post: {
        requestBody: body({ $ref: "#/components/schemas/SkillUpload" }),
        responses: {
          201: one,
          409: error("A skill of that name exists (PUT replaces it)"),
          ...refusals,
        },
      },
    },
    one: {
      parameters: [
        { name: "name", in: "path", required: true, schema: { type: "string", pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$" } },
      ],
      get: { responses: { 200: one, 404: notFound, ...refusals } },
      put: {
        requestBody: body({ $ref: "#/components/schemas/SkillUpload" }),
        responses: { 200: one, 201: one, ...refusals },
      },
      patch: {
        requestBody: body({ $ref: "#/components/schemas/SkillPatch" }),
        responses: { 200: one, 404: notFound, ...refusals },
      },
      delete: { responses: { 204: { description: "Deleted" }, 404: notFound, ...refusals } },
    },
  };
}
