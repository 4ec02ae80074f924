import { eq, ne } from "drizzle-orm";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import { skills } from "../db/d1-schema.ts";
import { SharedRead } from "../lib/shared-read.ts";
import type { Skill } from "./skill.ts";

/** The whole bot's skills are kept under this chat id, which no Telegram chat has. */
export const BOT_SCOPE_ID = 0;

/** How long skills read from D1 are trusted (an isolate's directory, a chat's own): changes arrive within this long. */
export const SKILLS_TTL_MS = 60_000;

/** What every chat of an isolate shares: the bot's skills, and which chats have skills of their own. */
export interface SkillSnapshot {
  bot: readonly Skill[];
  chatsWithOwn: ReadonlySet<number>;
  /** When the read began (a change after this may be missing from it). */
  readAt: number;
  /** When it is read again; what was taken from it is kept no longer. */
  expiresAt: number;
}

export function skillOf(row: typeof skills.$inferSelect): Skill {
  return {
    name: row.name,
    description: row.description,
    body: row.body,
    always: row.always,
    enabled: row.enabled,
    updatedAt: row.updatedAt,
  };
}

/**
 * The skills an isolate's chat objects share, read in one D1 round trip at most once a minute: most chats have no
 * skill of their own, so their turns need only the bot's, and a new chat's first turn reads no D1 for skills (it did
 * one read per chat per minute). A chat that has its own is read on its own, as before (`CachedSkills`).
 */
export class SkillDirectory {
  private current: SkillSnapshot | undefined;
  private readonly reads = new SharedRead<"all", SkillSnapshot>();

  constructor(
    private readonly db: DrizzleD1Database,
    private readonly now: () => number,
  ) {}

  read(): Promise<SkillSnapshot> {
    const current = this.current;
    if (current && this.now() < current.expiresAt) return Promise.resolve(current);
    const readAt = this.now();
    return this.reads.of("all", async (stillCurrent) => {
      const [bot, owners] = await this.db.batch([
        this.db.select().from(skills).where(eq(skills.chatId, BOT_SCOPE_ID)),
        this.db.selectDistinct({ chatId: skills.chatId }).from(skills).where(ne(skills.chatId, BOT_SCOPE_ID)),
      ]);
      const chatsWithOwn = new Set(owners.map((row) => row.chatId));
      const snapshot = { bot: bot.map(skillOf), chatsWithOwn, readAt, expiresAt: readAt + SKILLS_TTL_MS };
      if (stillCurrent()) this.current = snapshot;
      return snapshot;
    });
  }
}

let directories = new WeakMap<D1Database, SkillDirectory>();

/** The isolate's directory over this D1 database (one per binding, so that tests' databases never share one). */
export function skillDirectory(binding: D1Database, now: () => number = Date.now): SkillDirectory {
  let directory = directories.get(binding);
  if (!directory) {
    directory = new SkillDirectory(drizzle(binding), now);
    directories.set(binding, directory);
  }
  return directory;
}

/**
 * A skill was written through this isolate (or tests emptied D1): its directories are read again at their next use.
 * Other isolates' keep theirs for up to a minute, as each chat object's own copy did before.
 */
export function dropSkillDirectories(): void {
  directories = new WeakMap();
}
