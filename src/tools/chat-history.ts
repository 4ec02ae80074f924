import type { HistoryHit, HistoryQuery } from "../store/history-search.ts";

/**
 * What a tool may read of the chat's stored history (live and archived): the chat's own object answers, so no search
 * reaches another chat. The turn wires it to the chat's stores (src/turn/tool-context.ts).
 */
export interface ChatHistory {
  /** Full-text matches, ranked by BM25 or newest first. */
  keyword(query: HistoryQuery): HistoryHit[];
  /** These messages, in the order given; ids this chat does not have are left out. */
  byIds(ids: readonly number[]): HistoryHit[];
  /** The ids of the messages nearest in meaning, best first; undefined when no vector index is bound. */
  nearest: ((text: string, topK: number) => Promise<number[]>) | undefined;
}
