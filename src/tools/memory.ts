import * as z from "zod";
import { ftsExpression } from "../db/fts-query.ts";
import type { Fact } from "../memory/memory-repository.ts";
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
    if ((await context.memories.count(context.chatId)) >= MAX_MEMORIES_PER_CHAT) {
      throw new ToolError(`This chat already has ${MAX_MEMORIES_PER_CHAT} memories; forget some before adding more.`);
    }
    const id = await context.memories.add({
      chatId: context.chatId,
      content: fact,
      createdBy: context.userId ?? null,
      createdAt: context.now(),
      outside: context.trust.untrustedSource ?? null,
    });
    return { content: `Remembered (id ${id}).` };
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
      const recent = await context.memories.recent(context.chatId, RECALL_LIMIT);
      markIfOutside(recent, context);
      return { content: recent.length ? formatFacts(recent) : "No facts are remembered in this chat yet." };
    }
    const ranked = await context.memories.search(context.chatId, match, RECALL_LIMIT);
    markIfOutside(ranked, context);
    return { content: ranked.length ? formatFacts(ranked) : `No remembered fact matches "${query}".` };
  },
});

export const forget = defineTool({
  name: "forget",
  description: "Delete one of this chat's remembered facts by its id (as shown by recall).",
  schema: z.object({ id: z.number().int().positive().describe("The fact's id.") }),
  async handler({ id }, context) {
    if (!(await context.memories.delete(context.chatId, id)))
      throw new ToolError(`No fact with id ${id} in this chat.`);
    return { content: `Forgot fact ${id}.` };
  },
});

/** A fact written while outside content was in view carries that provenance into the turn that reads it back. */
function markIfOutside(facts: readonly Pick<Fact, "outside">[], context: ToolContext): void {
  // The chat's facts are its private data: with outside content in view, they must not leave unconfirmed.
  if (facts.length > 0) context.trust.markPrivate("the chat's remembered facts");
  const outside = facts.find((fact) => fact.outside !== null)?.outside;
  if (outside) context.trust.markUntrusted(`a remembered fact written after reading ${outside}`);
}

function formatFacts(facts: readonly Fact[]): string {
  return facts
    .map((fact) => `#${fact.id} (${new Date(fact.createdAt).toISOString().slice(0, 10)}): ${fact.content}`)
    .join("\n");
}
