import * as z from "zod";
import { ftsExpression } from "../db/fts-query.ts";
import type { Fact, StoredFact } from "../memory/memory-repository.ts";
import { canSee } from "../memory/visibility.ts";
import type { ToolContext } from "./context.ts";
import { defineTool, ToolError } from "./registry.ts";
import { searchWords } from "./search-words.ts";

const MAX_MEMORY_LENGTH = 2000;
const MAX_MEMORIES_PER_CHAT = 1000;
/** A person's facts are given to every turn they speak in: fewer than a chat's (consolidation keeps them fewer still). */
const MAX_MEMORIES_PER_PERSON = 200;
const RECALL_LIMIT = 20;

export const remember = defineTool({
  name: "remember",
  description:
    "Store a fact so it can be recalled in later conversations. One self-contained fact per call. scope: " +
    '"chat" (default) for what this chat decided or shares (plans, dates, decisions); ' +
    '"person" for a lasting fact the person speaking tells about themselves (their name, language, diet, family, ' +
    "preferences): it is kept with them and known wherever they talk to you; " +
    '"private" for a fact about them said in confidence or sensitive (health, money, relationships): it is used only ' +
    "in this chat. Write a person's fact in the third person with their name.",
  schema: z.object({
    fact: z.string().trim().min(1).max(MAX_MEMORY_LENGTH).describe("The fact, written so it makes sense on its own."),
    scope: z
      .enum(["chat", "person", "private"])
      .optional()
      .describe("Whose fact it is: the chat's (default), the speaker's own, or the speaker's and private."),
  }),
  async handler({ fact, scope = "chat" }, context) {
    const base = {
      chatId: context.chatId,
      content: fact,
      createdBy: context.userId ?? null,
      createdAt: context.now(),
      outside: context.trust.untrustedSource ?? null,
    };
    if (scope === "chat") {
      if ((await context.memories.count(context.chatId)) >= MAX_MEMORIES_PER_CHAT) {
        throw new ToolError(`This chat already has ${MAX_MEMORIES_PER_CHAT} memories; forget some before adding more.`);
      }
      const id = await context.memories.add(base);
      return { content: `Remembered (id ${id}).` };
    }
    // A person's fact is always about the one speaking: nobody writes into someone else's memory.
    const person = context.audience === undefined ? undefined : context.userId;
    if (person === undefined) throw new ToolError("There is no person speaking here to remember this about.");
    if ((await context.memories.countAbout(person)) >= MAX_MEMORIES_PER_PERSON) {
      throw new ToolError(`This person already has ${MAX_MEMORIES_PER_PERSON} memories; forget some before adding.`);
    }
    const id = await context.memories.add({ ...base, aboutUser: person, private: scope === "private" });
    context.memoryChanged?.(person);
    const where = scope === "private" ? "used only in this chat" : "known wherever they talk to you";
    return { content: `Remembered about the speaker (id ${id}, ${where}).` };
  },
});

export const recall = defineTool({
  name: "recall",
  description:
    "Search the remembered facts you may use here (this chat's, and those of the people speaking) by words; the " +
    "best matches (rarer words, more of them) come first. Without a query, lists the most recent facts.",
  schema: z.object({
    query: z.string().max(500).optional().describe("Words to look for; leave out to list the most recent facts."),
  }),
  async handler({ query }, context) {
    const audience = context.audience ?? { chatId: context.chatId, isPrivate: false, speakers: [] };
    const match = ftsExpression(searchWords(query ?? ""));
    if (match === undefined) {
      const recent = await context.memories.visible(audience, RECALL_LIMIT);
      markIfOutside(recent, context);
      return { content: recent.length ? formatFacts(recent) : "No facts are remembered in this chat yet." };
    }
    const ranked = await context.memories.searchVisible(audience, match, RECALL_LIMIT);
    markIfOutside(ranked, context);
    return { content: ranked.length ? formatFacts(ranked) : `No remembered fact matches "${query}".` };
  },
});

export const forget = defineTool({
  name: "forget",
  description:
    "Delete a remembered fact by its id (as shown by recall or in your instructions): one of this chat's, or one " +
    'about the person asking ("forget that").',
  schema: z.object({ id: z.number().int().positive().describe("The fact's id.") }),
  async handler({ id }, context) {
    const fact = await context.memories.byId(id);
    if (fact === undefined || !mayForget(fact, context)) throw new ToolError(`No fact with id ${id} in this chat.`);
    await context.memories.deleteById(id);
    return { content: `Forgot fact ${id}.` };
  },
});

/** A chat's fact by anyone in the chat; a person's only by that person, where it can be seen. */
function mayForget(fact: StoredFact, context: ToolContext): boolean {
  if (fact.aboutUser === null) return fact.chatId === context.chatId;
  return context.audience !== undefined && fact.aboutUser === context.userId && canSee(fact, context.audience);
}

/** A fact written while outside content was in view carries that provenance into the turn that reads it back. */
function markIfOutside(facts: readonly Pick<Fact, "outside">[], context: ToolContext): void {
  // The chat's facts are its private data: with outside content in view, they must not leave unconfirmed.
  if (facts.length > 0) context.trust.markPrivate("the chat's remembered facts");
  const outside = facts.find((fact) => fact.outside !== null)?.outside;
  if (outside) context.trust.markUntrusted(`a remembered fact written after reading ${outside}`);
}

function formatFacts(facts: readonly StoredFact[]): string {
  return facts
    .map((fact) => {
      const whose = fact.aboutUser === null ? "" : `, about user ${fact.aboutUser}${fact.private ? ", private" : ""}`;
      return `#${fact.id} (${new Date(fact.createdAt).toISOString().slice(0, 10)}${whose}): ${fact.content}`;
    })
    .join("\n");
}
