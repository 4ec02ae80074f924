import * as z from "zod";
import { startOfDay, startOfNextDay } from "../config/zones.ts";
import { errorText } from "../lib/errors.ts";
import type { HistoryHit } from "../store/history-search.ts";
import type { ChatHistory } from "./chat-history.ts";
import { fuseRankings } from "./rank-fusion.ts";
import { defineTool, ToolError } from "./registry.ts";
import { searchWords } from "./search-words.ts";

const DEFAULT_LIMIT = 8;
const MAX_LIMIT = 20;
/** How many candidates each ranking brings to the fusion. */
const CANDIDATES = 40;

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a day as YYYY-MM-DD")
  .refine((text) => !Number.isNaN(Date.parse(`${text}T12:00:00Z`)), "must be a real day");

export const searchHistory = defineTool({
  name: "search_history",
  description:
    "Search everything said in this chat, including messages older than the conversation you see (archived ones " +
    "too). Returns the matching messages with their date and who wrote them (in groups the sender's name starts " +
    'the text). Use it for questions about earlier conversations ("what did we decide about the trip?").',
  schema: z.object({
    query: z
      .string()
      .trim()
      .min(1)
      .max(300)
      .describe("Key words of what was said: names, places, numbers, topics (not a whole question)."),
    order: z
      .enum(["best", "newest"])
      .optional()
      .describe("best (default): the best matches first; newest: the most recent matches first."),
    from: day.optional().describe("Only messages on or after this day (YYYY-MM-DD, in the chat's time zone)."),
    to: day.optional().describe("Only messages on or before this day (YYYY-MM-DD)."),
    limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`How many messages (default ${DEFAULT_LIMIT}).`),
  }),
  async handler({ query, order = "best", from, to, limit = DEFAULT_LIMIT }, context) {
    const history = context.history;
    if (!history) throw new ToolError("This chat's history cannot be searched from here.");
    const words = searchWords(query);
    if (words.length === 0) throw new ToolError("The query has no words to search for.");
    const range = {
      ...(from === undefined ? {} : { from: startOfDay(Date.parse(`${from}T12:00:00Z`), context.timezone) }),
      ...(to === undefined ? {} : { until: startOfNextDay(Date.parse(`${to}T12:00:00Z`), context.timezone) }),
    };
    if (range.from !== undefined && range.until !== undefined && range.from >= range.until) {
      throw new ToolError(`"from" (${from}) is after "to" (${to}).`);
    }
    const hits =
      order === "best"
        ? await bestHits(history, { query, words, range, limit })
        : history.keyword({ words, limit, order, ...range });
    if (hits.length === 0) return { content: `No message in this chat matches "${query}".` };
    context.trust.markPrivate("the chat's searched history");
    // A message written while outside content was in view carries that provenance into the turn that reads it back.
    const outside = hits.find((hit) => hit.outside !== undefined)?.outside;
    if (outside) context.trust.markUntrusted(`an earlier message written after reading ${outside}`);
    const lines = hits.map(
      (hit) => `[#${hit.id} · ${when(hit.createdAt, context.timezone)} · ${hit.role}] ${hit.text}`,
    );
    return {
      content: `${hits.length} message${hits.length === 1 ? "" : "s"} matching "${query}" (${order === "best" ? "best first" : "newest first"}; times in ${context.timezone}):\n${lines.join("\n")}`,
    };
  },
});

/**
 * BM25 over the words, fused with the nearest messages by meaning when a vector index is bound (reciprocal rank
 * fusion); without one, or when it fails, the words alone.
 */
async function bestHits(
  history: ChatHistory,
  search: { query: string; words: string[]; range: { from?: number; until?: number }; limit: number },
): Promise<HistoryHit[]> {
  const { words, range, limit } = search;
  const keyword = history.keyword({ words, limit: history.nearest ? CANDIDATES : limit, order: "best", ...range });
  if (!history.nearest) return keyword;
  let nearest: number[];
  try {
    nearest = await history.nearest(search.query, CANDIDATES);
  } catch (error) {
    console.warn(`search_history: the vector index failed, words only: ${errorText(error)}`);
    return keyword.slice(0, limit);
  }
  const byWords = new Map(keyword.map((hit) => [hit.id, hit]));
  const byMeaning = new Map(history.byIds(nearest.filter((id) => !byWords.has(id))).map((hit) => [hit.id, hit]));
  const inRange = (hit: HistoryHit) =>
    (range.from === undefined || hit.createdAt >= range.from) &&
    (range.until === undefined || hit.createdAt < range.until);
  return fuseRankings([keyword.map((hit) => hit.id), nearest])
    .flatMap((id) => {
      // A keyword hit shows the part around the match; a hit by meaning alone, the message's start.
      const hit = byWords.get(id) ?? byMeaning.get(id);
      return hit && inRange(hit) ? [hit] : [];
    })
    .slice(0, limit);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** "2026-03-14 10:22" in the chat's time zone. */
function when(at: number, timezone: string): string {
  let formatter = formatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-CA", {
      timeZone: timezone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    formatters.set(timezone, formatter);
  }
  const parts = formatter.formatToParts(at);
  const part = (type: string) => parts.find((entry) => entry.type === type)?.value ?? "";
  return `${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")}`;
}
