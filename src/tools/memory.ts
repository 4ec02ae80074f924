import { and, count, desc, eq, like, or } from "drizzle-orm";
import * as z from "zod";
import { memories } from "../db/d1-schema.ts";
import type { ToolContext } from "./context.ts";
import { defineTool, ToolError } from "./registry.ts";

const MAX_MEMORY_LENGTH = 2000;
const MAX_MEMORIES_PER_CHAT = 1000;
const RECALL_LIMIT = 20;
const MAX_QUERY_WORDS = 8;

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
    "Search this chat's remembered facts by words; facts matching more of the words come first. " +
    "Without a query, lists the most recent facts.",
  schema: z.object({
    query: z.string().max(500).optional().describe("Words to look for; leave out to list the most recent facts."),
  }),
  async handler({ query }, context) {
    const words = wordsOf(query ?? "");
    const scope = eq(memories.chatId, context.chatId);
    const columns = {
      id: memories.id,
      content: memories.content,
      createdAt: memories.createdAt,
      outside: memories.outside,
    };
    if (words.length === 0) {
      const recent = await context.db
        .select(columns)
        .from(memories)
        .where(scope)
        .orderBy(desc(memories.id))
        .limit(RECALL_LIMIT);
      markIfOutside(recent, context);
      return { content: recent.length ? formatFacts(recent) : "No facts are remembered in this chat yet." };
    }
    const candidates = await context.db
      .select(columns)
      .from(memories)
      .where(and(scope, or(...words.map((word) => like(memories.content, `%${word}%`)))))
      .orderBy(desc(memories.id))
      .limit(200);
    const ranked = candidates
      .map((fact) => ({ fact, score: words.filter((word) => fact.content.toLowerCase().includes(word)).length }))
      .sort((left, right) => right.score - left.score || right.fact.id - left.fact.id)
      .slice(0, RECALL_LIMIT)
      .map(({ fact }) => fact);
    markIfOutside(ranked, context);
    return { content: ranked.length ? formatFacts(ranked) : `No remembered fact matches "${query}".` };
  },
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

/** Lower-case words of two or more letters or digits (so nothing LIKE treats as a wildcard), at most eight. */
/** A fact written while outside content was in view carries that provenance into the turn that reads it back. */
function markIfOutside(facts: readonly { outside: string | null }[], context: ToolContext): void {
  const outside = facts.find((fact) => fact.outside !== null)?.outside;
  if (outside) context.trust.markUntrusted(`a remembered fact written after reading ${outside}`);
}

function wordsOf(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? [];
  return [...new Set(words)].slice(0, MAX_QUERY_WORDS);
}

function formatFacts(facts: { id: number; content: string; createdAt: number }[]): string {
  return facts
    .map((fact) => `#${fact.id} (${new Date(fact.createdAt).toISOString().slice(0, 10)}): ${fact.content}`)
    .join("\n");
}
