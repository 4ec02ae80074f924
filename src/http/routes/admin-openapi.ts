import * as z from "zod";

interface AdminSchemas {
  config: z.ZodType;
  patch: z.ZodType;
  chatId: z.ZodType;
}

/**
 * The admin API's OpenAPI 3.1 document, built from the zod schemas the routes validate with (zod's own JSON Schema
 * output), so the two cannot drift. Hand-listed paths: six routes do not earn a routing layer of their own
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
  return {
    openapi: "3.1.0",
    info: { title: "Telegram edge agent: admin API", version: "1.0.0" },
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: {
        ChatConfig: jsonSchema(schemas.config),
        ChatConfigPatch: jsonSchema(schemas.patch),
        Error: {
          type: "object",
          required: ["error", "message"],
          properties: { error: { type: "string" }, message: { type: "string" }, details: {} },
        },
      },
    },
    paths: {
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
      "/usage": {
        get: {
          parameters: [{ name: "chatId", in: "query", schema: jsonSchema(schemas.chatId) }],
          responses: { 200: json({ type: "object" }, "Token use per chat and per model"), ...refusals },
        },
      },
    },
  };
}
