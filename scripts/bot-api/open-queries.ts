/**
 * The queries the bot can still answer: button presses (callback queries) and widget queries, each with when it was
 * opened. Telegram ties an answer to its query: a widget query must be answered within 15 seconds (the Bot API's
 * answerWidgetQuery), and an ephemeral reply to a button press (Bot API 10.4, `callback_query_id` in
 * `ephemeral_message_parameters`) answers the press. Telegram documents no deadline for callback queries; the fake
 * holds them to the same 15 seconds (its own choice: answers later than about that are refused in reports from the
 * real server).
 */
export type QueryKind = "callback" | "widget";

export interface OpenQuery {
  kind: QueryKind;
  id: string;
  /** Epoch ms. */
  openedAt: number;
  /** The chat of the message the query came from (a private chat, a group), when it came from one. */
  chatId?: number;
  /** Who pressed or tapped. */
  fromId?: number;
}

const QUERY_ANSWER_MS: Record<QueryKind, number> = { callback: 15_000, widget: 15_000 };

export class OpenQueries {
  private readonly queries = new Map<string, OpenQuery>();

  open(query: OpenQuery): void {
    this.queries.set(`${query.kind}:${query.id}`, query);
  }

  /** The query when it is known and still within its answer time, else undefined. */
  recent(kind: QueryKind, id: string, now = Date.now()): OpenQuery | undefined {
    const query = this.queries.get(`${kind}:${id}`);
    return query && now - query.openedAt <= QUERY_ANSWER_MS[kind] ? query : undefined;
  }

  close(kind: QueryKind, id: string): void {
    this.queries.delete(`${kind}:${id}`);
  }

  clear(): void {
    this.queries.clear();
  }
}
