import { drizzle } from "drizzle-orm/d1";
import { Hono } from "hono/tiny";
import * as z from "zod";
import { offeredChoices } from "../../commands/model-menu.ts";
import { settingsOf } from "../../config/loaded-settings.ts";
import { servedModelSourcesOf } from "../../durable/bindings.ts";
import { chatStub } from "../../durable/chat-key.ts";
import { mediaBucket } from "../../durable/optional-bindings.ts";
import type { Env } from "../../env.ts";
import { errorText } from "../../lib/errors.ts";
import { MemoryRepository, type StoredFact } from "../../memory/memory-repository.ts";
import { HttpError } from "../../protocol/http/error.ts";
import { validInput } from "../valid-input.ts";

type AdminEnv = { Bindings: Env };

/** A Telegram user id as text (a person's private chat has the same id). */
const userIdText = z
  .string()
  .regex(/^\d{1,16}$/, "must be a Telegram user id")
  .refine((text) => Number.isSafeInteger(Number(text)) && Number(text) > 0, "must be a Telegram user id");
const chatIdText = z
  .string()
  .regex(/^-?\d{1,16}$/, "must be a Telegram chat id")
  .refine((text) => Number.isSafeInteger(Number(text)), "must be a Telegram chat id");
const userParam = z.object({ userId: userIdText });
const chatParam = z.object({ chatId: chatIdText });
const memoryParam = z.object({ memoryId: z.coerce.number().int().positive() });

const LISTED = 500;
/** R2 deletes up to 1,000 keys in one call. */
const DELETE_AT_ONCE = 1000;

/** A fact as the admin API shows it: where it was said, whom it is about, and its provenance. */
function factView(fact: StoredFact) {
  return {
    id: fact.id,
    content: fact.content,
    chatId: fact.chatId,
    aboutUser: fact.aboutUser,
    private: fact.private,
    createdBy: fact.createdBy,
    createdAt: new Date(fact.createdAt).toISOString(),
    ...(fact.outside === null ? {} : { outside: fact.outside }),
    ...(fact.mergedFrom === null ? {} : { mergedFrom: fact.mergedFrom }),
  };
}

/**
 * The people the bot keeps facts about, and each one's data: `GET /admin/people`, `GET /admin/people/:userId/memories`,
 * `GET /admin/chats/:chatId/memories`, `DELETE /admin/memories/:memoryId`, and a person's whole data: an export
 * (`GET /admin/people/:userId/export`, one JSON download: their facts, the messages they wrote in their private chat,
 * their files' keys) and its deletion (`DELETE /admin/people/:userId`).
 */
export function adminPeopleRoutes(): Hono<AdminEnv> {
  const routes = new Hono<AdminEnv>();
  const repository = (env: Env) => new MemoryRepository(drizzle(env.DB));

  // What /model and the console offer: the owner's MODEL_CHOICES, else what each provider serves now (cached).
  routes.get("/models", async (c) => {
    const settings = settingsOf(c.env);
    return c.json(
      {
        source: settings.modelChoices.length > 0 ? "MODEL_CHOICES" : "providers",
        choices: await offeredChoices(servedModelSourcesOf(c.env, settings)),
      },
      200,
    );
  });

  routes.get("/people", async (c) => c.json({ people: await repository(c.env).peopleKept(LISTED) }, 200));

  routes.get("/people/:userId/memories", async (c) => {
    const userId = userIdOf(c.req.param());
    const facts = await repository(c.env).aboutPerson(userId);
    return c.json({ userId, memories: facts.map(factView) }, 200);
  });

  routes.get("/chats/:chatId/memories", async (c) => {
    const chatId = Number(validInput(chatParam, c.req.param(), "path").chatId);
    const facts = await repository(c.env).saidIn(chatId, LISTED);
    return c.json({ chatId, memories: facts.map(factView) }, 200);
  });

  routes.delete("/memories/:memoryId", async (c) => {
    const { memoryId } = validInput(memoryParam, c.req.param(), "path");
    if (!(await repository(c.env).deleteById(memoryId))) {
      throw new HttpError(404, { code: "not_found", message: `No memory #${memoryId}.` });
    }
    return c.body(null, 204);
  });

  routes.get("/people/:userId/export", async (c) => {
    const userId = userIdOf(c.req.param());
    const [facts, written] = await Promise.all([
      repository(c.env).aboutPerson(userId),
      chatStub(c.env, { chatId: userId }).personRows(),
    ]);
    const body = {
      userId,
      exportedAt: new Date().toISOString(),
      memories: facts.map(factView),
      privateChat: {
        chatId: userId,
        messages: written.map((row) => ({ ...row, createdAt: new Date(row.createdAt).toISOString() })),
      },
      files: [...new Set(written.flatMap((row) => row.files))],
      notes: [
        "Messages are those the person wrote in their private chat with the bot; group conversations are the group's.",
        "Files are keys in the MEDIA bucket (R2).",
      ],
    };
    c.header("content-disposition", `attachment; filename="person-${userId}.json"`);
    return c.json(body, 200);
  });

  routes.delete("/people/:userId", async (c) => {
    const userId = userIdOf(c.req.param());
    const memories = await repository(c.env).deleteAbout(userId);
    const erased = await chatStub(c.env, { chatId: userId }).erasePerson();
    const files = await deleteFiles(c.env, [...new Set(erased.files)]);
    return c.json({ userId, deleted: { memories, historyRows: erased.rows, files } }, 200);
  });

  return routes;
}

function userIdOf(param: Record<string, string>): number {
  return Number(validInput(userParam, param, "path").userId);
}

/** Deletes files from the MEDIA bucket; how many keys were deleted (0 without the bucket). */
async function deleteFiles(env: Env, keys: readonly string[]): Promise<number> {
  const bucket = mediaBucket(env);
  if (!bucket || keys.length === 0) return 0;
  let deleted = 0;
  for (let index = 0; index < keys.length; index += DELETE_AT_ONCE) {
    const batch = keys.slice(index, index + DELETE_AT_ONCE);
    try {
      await bucket.delete(batch);
      deleted += batch.length;
    } catch (error) {
      console.warn(`deleting ${batch.length} files of a person failed`, errorText(error));
    }
  }
  return deleted;
}
