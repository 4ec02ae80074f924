import { and, asc, eq, inArray } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import { skills } from "../db/d1-schema.ts";
import { SharedRead } from "../lib/shared-read.ts";
import {
  MAX_SKILLS_PER_SCOPE,
  type Skill,
  type SkillScope,
  skillChars,
  type TurnSkills,
  turnSkillsOf,
} from "./skill.ts";
import { BOT_SCOPE_ID, dropSkillDirectories, SKILLS_TTL_MS, type SkillDirectory, skillOf } from "./skill-directory.ts";
import type { SkillFile } from "./skill-markdown.ts";

function scopeId(scope: SkillScope): number {
  return scope.kind === "bot" ? BOT_SCOPE_ID : scope.chatId;
}

/** A chat's (or the bot's) skills, by name. */
export async function listSkills(db: DrizzleD1Database, scope: SkillScope): Promise<Skill[]> {
  const rows = await db
    .select()
    .from(skills)
    .where(eq(skills.chatId, scopeId(scope)))
    .orderBy(asc(skills.name));
  return rows.map(skillOf);
}

export async function getSkill(db: DrizzleD1Database, scope: SkillScope, name: string): Promise<Skill | undefined> {
  const rows = await db
    .select()
    .from(skills)
    .where(and(eq(skills.chatId, scopeId(scope)), eq(skills.name, name)))
    .limit(1);
  return rows[0] ? skillOf(rows[0]) : undefined;
}

/** Why a skill cannot be kept as well: the scope's count or its total size would pass its cap. */
export type SaveRefusal = { kind: "too_many"; limit: number } | { kind: "too_large"; total: number; limit: number };

/**
 * Stores a skill file under its name (a new one, or replacing the one of that name), unless the scope would then
 * hold more than `MAX_SKILLS_PER_SCOPE` skills or more than `maxTotalChars` characters. A replaced skill keeps its
 * `enabled` unless one is given; a new one is enabled unless told otherwise.
 */
export async function saveSkill(
  db: DrizzleD1Database,
  input: { scope: SkillScope; file: SkillFile; enabled?: boolean; maxTotalChars: number; now: number },
): Promise<{ kind: "saved"; created: boolean; skill: Skill } | SaveRefusal> {
  const { file, now } = input;
  const chatId = scopeId(input.scope);
  const existing = await listSkills(db, input.scope);
  const previous = existing.find((skill) => skill.name === file.name);
  const others = existing.filter((skill) => skill.name !== file.name);
  if (!previous && existing.length >= MAX_SKILLS_PER_SCOPE) return { kind: "too_many", limit: MAX_SKILLS_PER_SCOPE };
  const total = others.reduce((sum, skill) => sum + skillChars(skill), 0) + skillChars(file);
  if (total > input.maxTotalChars) return { kind: "too_large", total, limit: input.maxTotalChars };
  const enabled = input.enabled ?? previous?.enabled ?? true;
  const values = { description: file.description, body: file.body, always: file.always, enabled, updatedAt: now };
  await db
    .insert(skills)
    .values({ chatId, name: file.name, ...values, createdAt: now })
    .onConflictDoUpdate({ target: [skills.chatId, skills.name], set: values });
  dropSkillDirectories();
  return { kind: "saved", created: previous === undefined, skill: { name: file.name, ...values } };
}

/** Switches a skill on or off, or between `always` and on demand; undefined when the scope has no such skill. */
export async function changeSkill(
  db: DrizzleD1Database,
  input: { scope: SkillScope; name: string; enabled?: boolean; always?: boolean; now: number },
): Promise<Skill | undefined> {
  const set = {
    ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
    ...(input.always === undefined ? {} : { always: input.always }),
    updatedAt: input.now,
  };
  const rows = await db
    .update(skills)
    .set(set)
    .where(and(eq(skills.chatId, scopeId(input.scope)), eq(skills.name, input.name)))
    .returning();
  dropSkillDirectories();
  return rows[0] ? skillOf(rows[0]) : undefined;
}

export async function deleteSkill(db: DrizzleD1Database, scope: SkillScope, name: string): Promise<boolean> {
  const rows = await db
    .delete(skills)
    .where(and(eq(skills.chatId, scopeId(scope)), eq(skills.name, name)))
    .returning({ id: skills.id });
  dropSkillDirectories();
  return rows.length > 0;
}

/**
 * The skills a chat's turn has, in one query: its own enabled ones, and the bot's enabled ones it has no skill of the
 * same name for (a chat's own skill, even a disabled one, stands in for the bot's).
 */
export async function skillsForChat(db: DrizzleD1Database, chatId: number): Promise<TurnSkills> {
  const rows = await db
    .select()
    .from(skills)
    .where(inArray(skills.chatId, [chatId, BOT_SCOPE_ID]));
  const own = rows.filter((row) => row.chatId === chatId && chatId !== BOT_SCOPE_ID).map(skillOf);
  const bot = rows.filter((row) => row.chatId === BOT_SCOPE_ID).map(skillOf);
  return turnSkillsOf(own, bot);
}

/** An enabled skill a chat's turn may read: its own, else the bot's. */
export async function readableSkill(db: DrizzleD1Database, chatId: number, name: string): Promise<Skill | undefined> {
  const skill = await getSkill(db, { kind: "chat", chatId }, name);
  if (skill) return skill.enabled ? skill : undefined;
  const bot = await getSkill(db, { kind: "bot" }, name);
  return bot?.enabled ? bot : undefined;
}

/**
 * A chat object's skills, at most a minute old, and read again at once after a change the admin API or the chat's
 * `/skills` reports. A chat with no skill of its own (most) takes the bot's from the isolate's directory
 * (skill-directory.ts) without a read of its own; one with its own reads them with the bot's in one query, as does
 * any chat whose skills changed after the directory was read.
 */
export class CachedSkills {
  private cached: { chatId: number; skills: TurnSkills; until: number } | undefined;
  /** When this chat's skills last changed (`forget`): a directory read that began before then may not know of it. */
  private changedAt = Number.NEGATIVE_INFINITY;

  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly options: {
      db: () => DrizzleD1Database;
      /** The isolate's directory of the same database (skill-directory.ts). */
      directory: () => SkillDirectory;
      ttlMs?: number;
      now?: () => number;
    },
  ) {
    this.ttlMs = options.ttlMs ?? SKILLS_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /** A read under way, which a second call meanwhile (a warm-up, then the turn) shares. */
  private readonly reads = new SharedRead<number, TurnSkills>();

  forChat(chatId: number): Promise<TurnSkills> {
    if (this.cached && this.cached.chatId === chatId && this.cached.until > this.now())
      return Promise.resolve(this.cached.skills);
    return this.reads.of(chatId, (stillCurrent) =>
      this.read(chatId).then(({ skills, until }) => {
        // Forgotten while D1 was read (a skill changed): what the read found may be older than the change.
        if (stillCurrent()) this.cached = { chatId, skills, until };
        return skills;
      }),
    );
  }

  forget(): void {
    this.cached = undefined;
    this.reads.drop();
    this.changedAt = this.now();
  }

  private async read(chatId: number): Promise<{ skills: TurnSkills; until: number }> {
    const directory = await this.options.directory().read();
    if (directory.readAt > this.changedAt && !directory.chatsWithOwn.has(chatId)) {
      // Kept no longer than the directory itself, so that a change of the bot's skills still arrives within a minute.
      return { skills: turnSkillsOf([], directory.bot), until: directory.expiresAt };
    }
    return { skills: await skillsForChat(this.options.db(), chatId), until: this.now() + this.ttlMs };
  }
}
