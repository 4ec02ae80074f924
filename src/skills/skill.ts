import * as z from "zod";

/**
 * A skill: instructions in Markdown with a name and a one-line description, kept for one chat or for the whole bot.
 * The name follows what both agent CLIs accept for a native skill (Claude Code: lowercase letters, digits and hyphens,
 * at most 64; Codex: at most 64), so a chat's skill installs unchanged in its container.
 */
const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_NAME_LENGTH = 64;
/** Both CLIs cut or refuse a longer description. */
const MAX_DESCRIPTION_LENGTH = 1024;
/** How many skills one chat (or the bot) may keep: a listing the model reads every turn stays short. */
export const MAX_SKILLS_PER_SCOPE = 50;

export const skillNameSchema = z
  .string()
  .min(1)
  .max(MAX_NAME_LENGTH)
  .regex(SKILL_NAME, "must be 1-64 lowercase letters, digits and hyphens (e.g. packing-list)");

/** One line: a description is listed to the model and written into a SKILL.md's front matter as one YAML scalar. */
export const skillDescriptionSchema = z
  .string()
  .transform((text) => text.replace(/[\s\p{Cc}\p{Zl}\p{Zp}]+/gu, " ").trim())
  .pipe(z.string().min(1, "must not be empty").max(MAX_DESCRIPTION_LENGTH));

/** Where a skill is kept: one chat's, or the whole bot's (every chat sees those it does not override). */
export type SkillScope = { kind: "bot" } | { kind: "chat"; chatId: number };

/** A skill as stored. `always` ones join the system prompt; the others are listed and read with `use_skill`. */
export interface Skill {
  name: string;
  description: string;
  body: string;
  always: boolean;
  enabled: boolean;
  updatedAt: number;
}

/** What counts against the size caps: the text the model may read (description and body). */
export function skillChars(skill: Pick<Skill, "description" | "body">): number {
  return skill.description.length + skill.body.length;
}

/** The skills one turn has, split by how the model gets them. */
export interface TurnSkills {
  always: Skill[];
  listed: Skill[];
}

export const NO_SKILLS: TurnSkills = { always: [], listed: [] };

/** A chat's own skills over the bot's of the same name; then only the enabled ones, by name. */
export function turnSkillsOf(own: readonly Skill[], bot: readonly Skill[]): TurnSkills {
  const names = new Set(own.map((skill) => skill.name));
  const all = [...own, ...bot.filter((skill) => !names.has(skill.name))].filter((skill) => skill.enabled);
  all.sort((left, right) => left.name.localeCompare(right.name));
  return { always: all.filter((skill) => skill.always), listed: all.filter((skill) => !skill.always) };
}
