import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { keepHistory } from "../../../src/compaction/history-upkeep.ts";
import { embeddedThroughIdSlot } from "../../../src/compaction/summary-slots.ts";
import { ChatConfigStore } from "../../../src/config/config-store.ts";
import { settingsOf } from "../../../src/config/loaded-settings.ts";
import { semanticIndexOf } from "../../../src/durable/bindings.ts";
import type { HistoryMessage } from "../../../src/protocol/messages.ts";
import type { ChatStores } from "../../../src/store/chat-stores.ts";
import type { ChatHistory } from "../../../src/tools/chat-history.ts";
import { tools } from "../../../src/tools/index.ts";
import { fuseRankings } from "../../../src/tools/rank-fusion.ts";
import { type EmbeddingRunner, SemanticIndex, type VectorIndex } from "../../../src/tools/semantic-index.ts";
import { session } from "../../worker/helpers.ts";
import { toolContextFor } from "./tool-context.ts";

const CHAT = 7201;
const CHAT_KEY = `chat:${CHAT}`;
const START = Date.parse("2026-03-01T09:00:00Z");
const HOUR = 60 * 60 * 1000;

/**
 * A fake embeddings model: each text becomes counts over a few "concepts", so that words that mean the same thing
 * (lock, locker, combination, code, pin) land near each other while sharing no letters.
 */
const CONCEPTS = [
  ["lock", "locker", "combination", "code", "pin", "padlock"],
  ["trip", "journey", "travel", "lisbon", "holiday", "flight"],
  ["dinner", "lunch", "restaurant", "food", "pizza"],
  ["weather", "rain", "sun", "forecast"],
];

class FakeAi implements EmbeddingRunner {
  calls: { model: string; texts: string[] }[] = [];
  async run(model: string, inputs: Record<string, unknown>): Promise<unknown> {
    const texts = inputs.text as string[];
    this.calls.push({ model, texts });
    return { shape: [texts.length, CONCEPTS.length + 1], data: texts.map(embed) };
  }
}

function embed(text: string): number[] {
  const words = text.toLowerCase().match(/\p{L}+/gu) ?? [];
  const vector = CONCEPTS.map((concept) => words.filter((word) => concept.includes(word)).length);
  return [...vector, 0.01];
}

/** A fake Vectorize index: cosine similarity over what was upserted, per namespace. */
class FakeVectorize implements VectorIndex {
  readonly vectors = new Map<string, { values: number[]; namespace: string }>();
  failQueries = false;
  async upsert(vectors: { id: string; values: number[]; namespace: string }[]): Promise<unknown> {
    for (const vector of vectors) this.vectors.set(vector.id, vector);
    return { mutationId: "m1" };
  }
  async query(vector: number[], options: { topK: number; namespace: string }): Promise<unknown> {
    if (this.failQueries) throw new Error("VECTOR_QUERY_ERROR (code = 40006): the index is unavailable");
    const matches = [...this.vectors.entries()]
      .filter(([, stored]) => stored.namespace === options.namespace)
      .map(([id, stored]) => ({ id, score: cosine(vector, stored.values) }))
      .filter((match) => match.score > 0.5)
      .sort((left, right) => right.score - left.score)
      .slice(0, options.topK);
    return { count: matches.length, matches };
  }
  async deleteByIds(ids: string[]): Promise<unknown> {
    for (const id of ids) this.vectors.delete(id);
    return { mutationId: "m2" };
  }
}

function cosine(left: number[], right: number[]): number {
  const dot = left.reduce((sum, value, index) => sum + value * (right[index] ?? 0), 0);
  const norm = (vector: number[]) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return dot / (norm(left) * norm(right) || 1);
}

const CONVERSATION: HistoryMessage[] = [
  { role: "user", content: "Ada: my padlock combination at the pool is 2580" },
  { role: "assistant", content: "Noted." },
  { role: "user", content: "Bob: the locker code for the gym is 4711" },
  { role: "user", content: "Ada: we decided the March trip goes to Lisbon" },
  { role: "assistant", content: "Lisbon it is, by train." },
  { role: "user", content: "Bob: pizza for dinner on Friday?" },
  { role: "user", content: "Ada: the gym locker code changed to 1234" },
];

/** The conversation above, an hour apart from START, in the chat's object. */
function seed(stores: ChatStores): void {
  CONVERSATION.forEach((message, index) => {
    stores.history.append([message], START + index * HOUR);
  });
}

function historyOf(stores: ChatStores, semantic?: SemanticIndex): ChatHistory {
  return {
    keyword: (query) => stores.historySearch.keyword(query),
    byIds: (ids) => stores.historySearch.byIds(ids),
    nearest: semantic ? (text, topK) => semantic.nearest(text, topK) : undefined,
  };
}

const search = (args: unknown, history: ChatHistory) =>
  tools.execute(
    "search_history",
    JSON.stringify(args),
    toolContextFor(CHAT, { overrides: { history, timezone: "Europe/Lisbon" } }),
    undefined,
  );

describe("search_history", () => {
  it("finds messages with their time, role and sender, best first or newest first, within dates", async () => {
    await runInDurableObject(session(CHAT), async ({ stores }) => {
      seed(stores);
      const history = historyOf(stores);

      const best = await search({ query: "gym locker code" }, history);
      expect(best.isError).toBe(false);
      const lines = best.content.split("\n");
      expect(lines[0]).toBe('2 messages matching "gym locker code" (best first; times in Europe/Lisbon):');
      // Both hold all three words; BM25 ranks the shorter message first.
      expect(lines.slice(1)).toEqual([
        "[#7 · 2026-03-01 15:00 · user] Ada: the gym locker code changed to 1234",
        "[#3 · 2026-03-01 11:00 · user] Bob: the locker code for the gym is 4711",
      ]);

      const newest = await search({ query: "locker", order: "newest" }, history);
      expect(newest.content.split("\n").map((line) => line.slice(0, 4))).toEqual(["2 me", "[#7 ", "[#3 "]);

      const trip = await search({ query: "what did we decide about the trip in March?" }, history);
      expect(trip.content).toContain("Ada: we decided the March trip goes to Lisbon");

      const nothingThen = await search({ query: "locker", from: "2026-03-02" }, history);
      expect(nothingThen.content).toBe('No message in this chat matches "locker".');
      const thatDay = await search({ query: "locker", from: "2026-03-01", to: "2026-03-01", limit: 1 }, history);
      expect(thatDay.content.split("\n")).toHaveLength(2);
    });
  });

  it("refuses arguments it cannot search with", async () => {
    await runInDurableObject(session(CHAT), async ({ stores }) => {
      const history = historyOf(stores);
      expect((await search({}, history)).content).toMatch(/^Error: Invalid arguments for "search_history": query/);
      expect((await search({ query: "?!" }, history)).content).toBe("Error: The query has no words to search for.");
      expect((await search({ query: "x", from: "2026-13-45" }, history)).content).toContain("must be a real day");
      expect((await search({ query: "x", from: "March 3" }, history)).content).toContain("YYYY-MM-DD");
      expect((await search({ query: "x", limit: 50 }, history)).content).toMatch(/^Error: Invalid arguments/);
      expect((await search({ query: "x", from: "2026-03-05", to: "2026-03-01" }, history)).content).toBe(
        'Error: "from" (2026-03-05) is after "to" (2026-03-01).',
      );
    });
  });

  it("with a vector index, fuses meaning with words: a padlock combination answers a question about locker codes", async () => {
    await runInDurableObject(session(CHAT), async ({ stores }) => {
      seed(stores);
      const ai = new FakeAi();
      const vectors = new FakeVectorize();
      const semantic = new SemanticIndex({ ai, vectors, model: "@cf/baai/bge-m3", namespace: CHAT_KEY });
      await semantic.add(stores.historySearch.after(0, 100));
      // Another chat's vectors live in another namespace, with ids that exist here too.
      await new SemanticIndex({ ai, vectors, model: "@cf/baai/bge-m3", namespace: "chat:42" }).add([
        { id: 6, text: "chat 42: my locker combination is 0000" },
      ]);

      const words = await search({ query: "locker code" }, historyOf(stores));
      expect(words.content).not.toContain("padlock");

      const hybrid = await search({ query: "locker code" }, historyOf(stores, semantic));
      const ids = hybrid.content
        .split("\n")
        .slice(1)
        .map((line) => Number(/^\[#(\d+)/.exec(line)?.[1]));
      // Found by both rankings first, then the padlock (meaning only); never chat 42's row 6 (pizza here).
      expect(ids.slice(0, 2).sort()).toEqual([3, 7]);
      expect(ids).toContain(1);
      expect(ids).not.toContain(6);
      expect(ai.calls.at(-1)).toEqual({ model: "@cf/baai/bge-m3", texts: ["locker code"] });

      // The index failing leaves the words.
      vectors.failQueries = true;
      const fallback = await search({ query: "locker code" }, historyOf(stores, semantic));
      expect(fallback.isError).toBe(false);
      expect(fallback.content).toContain("#3");
      expect(fallback.content).not.toContain("padlock");
    });
  });

  it("reciprocal rank fusion puts what both rankings found first", () => {
    expect(
      fuseRankings([
        [1, 2, 3],
        [3, 4, 1],
      ]),
    ).toEqual([1, 3, 2, 4]);
    expect(fuseRankings([[], [5, 6]])).toEqual([5, 6]);
    expect(fuseRankings([[7], []])).toEqual([7]);
  });
});

describe("keeping the archive and the vector index", () => {
  const upkeepContext = (stores: ChatStores, bindings: Record<string, unknown>, now = START + 100 * HOUR) => ({
    semanticIndex: semanticIndexOf({ ...env, ...bindings } as typeof env, settingsOf(env), CHAT_KEY),
    settings: settingsOf(env),
    stores,
    configs: new ChatConfigStore(env.CONFIG, tools.names),
    chat: { id: CHAT },
    chatKey: CHAT_KEY,
    now: () => now,
  });

  it("finds the bound index by name, embeds what it has not seen, and deletes what retention deletes", async () => {
    const vectors = new FakeVectorize();
    const ai = new FakeAi();
    expect(semanticIndexOf(env, settingsOf(env), CHAT_KEY)).toBeUndefined();
    expect(semanticIndexOf({ ...env, HISTORY_VECTORS: { query: 1 } } as typeof env, settingsOf(env), CHAT_KEY)).toBe(
      undefined,
    );
    await runInDurableObject(session(CHAT), async ({ stores }) => {
      seed(stores);
      await keepHistory(upkeepContext(stores, { HISTORY_VECTORS: vectors, AI: ai }));
      // Six messages have text ("Noted." included); all embedded under the chat's namespace, in one call.
      expect([...vectors.vectors.keys()]).toEqual([1, 2, 3, 4, 5, 6, 7].map((id) => `${CHAT_KEY}/${id}`));
      expect(ai.calls).toHaveLength(1);
      expect(stores.meta.get(embeddedThroughIdSlot)).toBe(7);
      await keepHistory(upkeepContext(stores, { HISTORY_VECTORS: vectors, AI: ai }));
      expect(ai.calls).toHaveLength(1);

      // A retention of two days, with everything archived: rows older than that go, and their vectors.
      await new ChatConfigStore(env.CONFIG, tools.names).put(CHAT, { historyRetentionDays: 2 });
      stores.history.prune(2);
      await keepHistory(upkeepContext(stores, { HISTORY_VECTORS: vectors, AI: ai }, START + 2 * 24 * HOUR + 3 * HOUR));
      // Rows 1-3 are older than two days by then; 4 and 5 are younger; 6 and 7 are live (never deleted here).
      expect(stores.historySearch.archived()).toBe(2);
      expect([...vectors.vectors.keys()]).toEqual([4, 5, 6, 7].map((id) => `${CHAT_KEY}/${id}`));
    });
  });
});
