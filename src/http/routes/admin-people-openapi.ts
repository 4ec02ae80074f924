/** The people routes' part of the admin API's OpenAPI document (admin-people.ts). */
export function peoplePaths(parts: {
  json: (schema: object, description: string) => object;
  refusals: object;
  chatIdParameter: object;
}): Record<string, object> {
  const { json, refusals, chatIdParameter } = parts;
  const userIdParameter = {
    name: "userId",
    in: "path",
    required: true,
    schema: { type: "string", pattern: "^\\d{1,16}$" },
    description: "A Telegram user id (their private chat has the same id)",
  };
  const memory = {
    type: "object",
    required: ["id", "content", "chatId", "aboutUser", "private", "createdAt"],
    properties: {
      id: { type: "integer" },
      content: { type: "string" },
      chatId: { type: "integer", description: "Where it was said" },
      aboutUser: { type: ["integer", "null"], description: "The person it is about; null: the chat's own fact" },
      private: { type: "boolean", description: "Kept to the chat it was said in" },
      createdBy: { type: ["integer", "null"] },
      createdAt: { type: "string", format: "date-time" },
      outside: { type: "string", description: "Provenance: the outside content the turn that wrote it had read" },
      mergedFrom: { type: "string", description: "Consolidation: the facts merged into this one (JSON)" },
    },
  };
  const memories = (key: string) => ({
    type: "object",
    properties: { [key]: { type: "integer" }, memories: { type: "array", items: memory } },
  });
  const notFound = json({ $ref: "#/components/schemas/Error" }, "No such memory");
  return {
    "/models": {
      get: {
        description:
          "The models /model and the console offer: MODEL_CHOICES when set, else what each provider with a key serves (its models list, cached 6 hours, chat models with tools)",
        responses: { 200: json({ type: "object" }, "{ source, choices: [{ provider, model }] }"), ...refusals },
      },
    },
    "/people": {
      get: {
        responses: { 200: json({ type: "object" }, "The people facts are kept about, with counts"), ...refusals },
      },
    },
    "/people/{userId}/memories": {
      parameters: [userIdParameter],
      get: { responses: { 200: json(memories("userId"), "Every fact about the person"), ...refusals } },
    },
    "/people/{userId}/export": {
      parameters: [userIdParameter],
      get: {
        description:
          "One JSON download of everything kept about the person: their facts, the messages they wrote in their private chat, their files' keys",
        responses: { 200: json({ type: "object" }, "The export (Content-Disposition: attachment)"), ...refusals },
      },
    },
    "/people/{userId}": {
      parameters: [userIdParameter],
      delete: {
        description:
          "Deletes everything kept about the person: their facts, their private chat's conversation (live and archived), their files",
        responses: { 200: json({ type: "object" }, "How much was deleted"), ...refusals },
      },
    },
    "/chats/{chatId}/memories": {
      parameters: [chatIdParameter],
      get: { responses: { 200: json(memories("chatId"), "Every fact said in the chat"), ...refusals } },
    },
    "/memories/{memoryId}": {
      parameters: [{ name: "memoryId", in: "path", required: true, schema: { type: "integer", minimum: 1 } }],
      delete: { responses: { 204: { description: "Deleted" }, 404: notFound, ...refusals } },
    },
  };
}
