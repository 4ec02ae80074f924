import { drizzle } from "drizzle-orm/d1";
import type { Context } from "hono";
import { Hono } from "hono/tiny";
import * as z from "zod";
import { settingsOf } from "../../config/loaded-settings.ts";
import { chatStub } from "../../durable/chat-key.ts";
import type { Env } from "../../env.ts";
import { errorText } from "../../lib/errors.ts";
import { HttpError } from "../../protocol/http/error.ts";
import { jsonBody } from "../../protocol/http/json-body.ts";
import { type Skill, type SkillScope, skillChars, skillNameSchema } from "../../skills/skill.ts";
import { MAX_SKILL_FILE_CHARS, parseSkillFile, skillFileText } from "../../skills/skill-markdown.ts";
import { changeSkill, deleteSkill, getSkill, listSkills, saveSkill } from "../../skills/skill-store.ts";
import { validInput } from "../valid-input.ts";

type AdminEnv = { Bindings: Env };

/** A skill file, as uploaded: Markdown with front matter (`name`, `description`, `always`), and optionally `enabled`. */
export const skillUploadSchema = z.strictObject({
  markdown: z.string().min(1).max(MAX_SKILL_FILE_CHARS),
  enabled: z.boolean().optional(),
});
/** Switches: on or off, and given whole (`always`) or read on demand. */
export const skillPatchSchema = z
  .strictObject({ enabled: z.boolean().optional(), always: z.boolean().optional() })
  .refine((patch) => patch.enabled !== undefined || patch.always !== undefined, {
    message: "give enabled and/or always",
  });
const chatIdText = z
  .string()
  .regex(/^-?\d{1,16}$/, "must be a Telegram chat id")
  .refine((text) => Number.isSafeInteger(Number(text)) && Number(text) !== 0, "must be a Telegram chat id");
const chatParam = z.object({ chatId: chatIdText });
const nameParam = z.object({ name: skillNameSchema });
const listQuery = z.object({ full: z.enum(["0", "1"]).optional() });

const MAX_BODY_BYTES = 256 * 1024;

/**
 * `/admin/skills` (the whole bot's) and `/admin/chats/:chatId/skills` (one chat's): list, upload, read, replace,
 * switch on or off, delete. Every body is validated whole (the file's front matter by field: `name`, `description`,
 * `always`, `body`; `markdown` for its shape) before anything is written, and the caps (SKILL_MAX_CHARS per skill,
 * SKILLS_MAX_TOTAL_CHARS and 50 skills per chat or for the bot) are checked against what is stored. A change to a
 * chat's skills is handed to its object, which uses it from the next turn; the bot's are picked up within a minute.
 */
export function adminSkillsRoutes(): Hono<AdminEnv> {
  const routes = new Hono<AdminEnv>();
  for (const prefix of ["/skills", "/chats/:chatId/skills"]) {
    routes.get(prefix, async (c) => {
      const scope = scopeOf(c);
      const { full } = validInput(listQuery, c.req.query(), "query");
      const skills = await listSkills(drizzle(c.env.DB), scope);
      const { maxChars, maxTotalChars } = settingsOf(c.env).skills;
      return c.json(
        {
          ...scopeView(scope),
          skills: skills.map((skill) => (full === "1" ? fullView(skill) : skillView(skill))),
          totalChars: skills.reduce((sum, skill) => sum + skillChars(skill), 0),
          maxChars,
          maxTotalChars,
        },
        200,
      );
    });

    routes.post(prefix, jsonBody(skillUploadSchema, { maxBytes: MAX_BODY_BYTES }), async (c) => {
      const scope = scopeOf(c);
      const upload = c.req.valid("json");
      const file = fileOf(c, upload.markdown);
      if (await getSkill(drizzle(c.env.DB), scope, file.name)) {
        throw new HttpError(409, {
          code: "conflict",
          message: `A skill named ${file.name} exists already; PUT ${prefixOf(scope)}/${file.name} replaces it.`,
          details: [{ field: "name", problem: "a skill of this name exists already" }],
        });
      }
      const skill = await save(c, scope, file, upload.enabled);
      return c.json({ skill: skillView(skill) }, 201);
    });

    routes.get(`${prefix}/:name`, async (c) => {
      const scope = scopeOf(c);
      const skill = await getSkill(drizzle(c.env.DB), scope, nameOf(c));
      if (!skill) throw notFound(scope, nameOf(c));
      return c.json({ skill: fullView(skill) }, 200);
    });

    routes.put(`${prefix}/:name`, jsonBody(skillUploadSchema, { maxBytes: MAX_BODY_BYTES }), async (c) => {
      const scope = scopeOf(c);
      const name = nameOf(c);
      const upload = c.req.valid("json");
      const file = fileOf(c, upload.markdown);
      if (file.name !== name) {
        throw invalid([{ field: "name", problem: `the file is named ${file.name}, the path ${name}` }]);
      }
      const existed = (await getSkill(drizzle(c.env.DB), scope, name)) !== undefined;
      const skill = await save(c, scope, file, upload.enabled);
      return c.json({ skill: skillView(skill) }, existed ? 200 : 201);
    });

    routes.patch(`${prefix}/:name`, jsonBody(skillPatchSchema, { maxBytes: 1024 }), async (c) => {
      const scope = scopeOf(c);
      const patch = c.req.valid("json");
      const skill = await changeSkill(drizzle(c.env.DB), {
        scope,
        name: nameOf(c),
        ...(patch.enabled === undefined ? {} : { enabled: patch.enabled }),
        ...(patch.always === undefined ? {} : { always: patch.always }),
        now: Date.now(),
      });
      if (!skill) throw notFound(scope, nameOf(c));
      await tellChat(c.env, scope);
      return c.json({ skill: skillView(skill) }, 200);
    });

    routes.delete(`${prefix}/:name`, async (c) => {
      const scope = scopeOf(c);
      if (!(await deleteSkill(drizzle(c.env.DB), scope, nameOf(c)))) throw notFound(scope, nameOf(c));
      await tellChat(c.env, scope);
      return c.body(null, 204);
    });
  }
  return routes;
}

/** A skill as the API shows it (its body only when one skill is asked for). */
function skillView(skill: Skill) {
  return {
    name: skill.name,
    description: skill.description,
    always: skill.always,
    enabled: skill.enabled,
    chars: skillChars(skill),
    updatedAt: new Date(skill.updatedAt).toISOString(),
  };
}

/** With its instructions, and as a file. */
function fullView(skill: Skill) {
  return { ...skillView(skill), body: skill.body, markdown: skillFileText(skill) };
}

function scopeView(scope: SkillScope) {
  return scope.kind === "bot" ? { scope: "bot" as const } : { scope: "chat" as const, chatId: scope.chatId };
}

function scopeOf(c: Context<AdminEnv>): SkillScope {
  const chatId = c.req.param("chatId");
  if (chatId === undefined) return { kind: "bot" };
  return { kind: "chat", chatId: Number(validInput(chatParam, { chatId }, "path").chatId) };
}

function nameOf(c: Context<AdminEnv>): string {
  return validInput(nameParam, { name: c.req.param("name") }, "path").name;
}

function prefixOf(scope: SkillScope): string {
  return scope.kind === "bot" ? "/admin/skills" : `/admin/chats/${scope.chatId}/skills`;
}

function fileOf(c: Context<AdminEnv>, markdown: string) {
  const parsed = parseSkillFile(markdown, settingsOf(c.env).skills.maxChars);
  if (!parsed.ok) throw invalid(parsed.issues);
  return parsed.file;
}

async function save(
  c: Context<AdminEnv>,
  scope: SkillScope,
  file: ReturnType<typeof fileOf>,
  enabled: boolean | undefined,
): Promise<Skill> {
  const result = await saveSkill(drizzle(c.env.DB), {
    scope,
    file,
    ...(enabled === undefined ? {} : { enabled }),
    maxTotalChars: settingsOf(c.env).skills.maxTotalChars,
    now: Date.now(),
  });
  const whose = scope.kind === "bot" ? "The bot" : "This chat";
  switch (result.kind) {
    case "too_many":
      throw invalid([{ field: "markdown", problem: `${whose} has ${result.limit} skills, the most it may keep` }]);
    case "too_large":
      throw invalid([
        {
          field: "body",
          problem: `${whose}'s skills would have ${result.total.toLocaleString("en-US")} characters; at most ${result.limit.toLocaleString("en-US")} (SKILLS_MAX_TOTAL_CHARS)`,
        },
      ]);
    case "saved":
      await tellChat(c.env, scope);
      return result.skill;
  }
}

function invalid(details: { field: string; problem: string }[]): HttpError {
  return new HttpError(400, {
    code: "invalid_request",
    message: `Invalid skill: ${details.map((detail) => `${detail.field}: ${detail.problem}`).join("; ")}`,
    details,
  });
}

function notFound(scope: SkillScope, name: string): HttpError {
  const whose = scope.kind === "bot" ? "The bot" : `Chat ${scope.chatId}`;
  return new HttpError(404, { code: "not_found", message: `${whose} has no skill named ${name}.` });
}

/** The chat's object reads its skills again at its next turn; the bot's skills reach every chat within a minute. */
async function tellChat(env: Env, scope: SkillScope): Promise<void> {
  if (scope.kind === "bot") return;
  try {
    await chatStub(env, { chatId: scope.chatId }).skillsChanged();
  } catch (error) {
    console.warn(`chat ${scope.chatId}: could not hand over its new skills`, errorText(error));
  }
}
