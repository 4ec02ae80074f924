import { and, count, desc, eq, sql } from "drizzle-orm";
import * as z from "zod";
import { memories } from "../db/d1-schema.ts";
import { ftsExpression } from "../db/fts-query.ts";
import type { ToolContext } from "./context.ts";
import { defineTool, ToolError } from "./registry.ts";
import { searchWords } from "./search-words.ts";

const MAX_MEMORY_LENGTH = 2000;
const MAX_MEMORIES_PER_CHAT = 1000;
const RECALL_LIMIT = 20;

export const remember = defineTool({
  name: "remember",
  description:
    "Store a fact for this chat so it can be recalled in later conversations (preferences, names, dates, decisions). " +
    "Store one self-contained fact per call.",
  schema: z.object({
    fact: z.string().trim().min(1).max(MAX_MEMORY_LENGTH).describe("The fact, written so it makes sense on its own."),
  }),
  async handler({ fact }, context) {
    const [counted] = await context.db
      .select({ stored: count() })
      .from(memories)
      .where(eq(memories.chatId, context.chatId));
    if ((counted?.stored ?? 0) >= MAX_MEMORIES_PER_CHAT) {
      throw new ToolError(`This chat already has ${MAX_MEMORIES_PER_CHAT} memories; forget some before adding more.`);
    }
    const [row] = await context.db
      .insert(memories)
      .values({
        chatId: context.chatId,
        content: fact,
        createdBy: context.userId ?? null,
        createdAt: context.now(),
        outside: context.trust.untrustedSource ?? null,
      })
      .returning({ id: memories.id });
    return { content: `Remembered (id ${row!.id}).` };
  },
});

export const recall = defineTool({
  name: "recall",
  description:
    "Search this chat's remembered facts by words; the best matches (rarer words, more of them) come first. " +
    "Without a query, lists the most recent facts.",
  schema: z.object({
    query: z.string().max(500).optional().describe("Words to look for; leave out to list the most recent facts."),
  }),
  async handler({ query }, context) {
    const match = ftsExpression(searchWords(query ?? ""));
    if (match === undefined) {
      const recent = await context.db
        .select({
          id: memories.id,
          content: memories.content,
          createdAt: memories.createdAt,
          outside: memories.outside,
        })
        .from(memories)
        .where(eq(memories.chatId, context.chatId))
        .orderBy(desc(memories.id))
        .limit(RECALL_LIMIT);
      markIfOutside(recent, context);
      return { content: recent.length ? formatFacts(recent) : "No facts are remembered in this chat yet." };
    }
    // The full-text index (FTS5, BM25) spans every chat's facts; the join keeps this chat's alone.
    const rows = await context.db.all(sql`
      SELECT m.id AS id, m.content AS content, m.created_at AS createdAt, m.outside AS outside
      FROM memories_search JOIN memories m ON m.id = memories_search.rowid
      WHERE memories_search MATCH ${match} AND m.chat_id = ${context.chatId}
      ORDER BY memories_search.rank LIMIT ${RECALL_LIMIT}`);
    const ranked = rows.flatMap((row) => {
      const parsed = factSchema.safeParse(row);
      return parsed.success ? [parsed.data] : [];
    });
    markIfOutside(ranked, context);
    return { content: ranked.length ? formatFacts(ranked) : `No remembered fact matches "${query}".` };
  },
});

const factSchema = z.object({
  id: z.number().int(),
  content: z.string(),
  createdAt: z.number(),
  outside: z.string().nullable(),
});

export const forget = defineTool({
  name: "forget",
  description: "Delete one of this chat's remembered facts by its id (as shown by recall).",
  schema: z.object({ id: z.number().int().positive().describe("The fact's id.") }),
  async handler({ id }, context) {
    const deleted = await context.db
      .delete(memories)
      .where(and(eq(memories.id, id), eq(memories.chatId, context.chatId)))
      .returning({ id: memories.id });
    if (deleted.length === 0) throw new ToolError(`No fact with id ${id} in this chat.`);
    return { content: `Forgot fact ${id}.` };
  },
});

/** A fact written while outside content was in view carries that provenance into the turn that reads it back. */
function markIfOutside(facts: readonly { outside: string | null }[], context: ToolContext): void {
  const outside = facts.find((fact) => fact.outside !== null)?.outside;
  if (outside) context.trust.markUntrusted(`a remembered fact written after reading ${outside}`);
}

function formatFacts(facts: { id: number; content: string; createdAt: number }[]): string {
  return facts
    .map((fact) => `#${fact.id} (${new Date(fact.createdAt).toISOString().slice(0, 10)}): ${fact.content}`)
    .join("\n");
}
