import { type SQL, sql } from "drizzle-orm";

/**
 * A statement, built on first use and then reused: drizzle's query building showed up in the benchmark's profile, so
 * the statements every message runs are prepared once per object and only their parameters change. Each is built the
 * first time it runs, not with the rest of its store's: a new object's first turn (a new chat, or an object the
 * platform evicted and woke again) builds only the statements it runs.
 */
export function preparedOnce<Statements>(build: () => Statements): () => Statements {
  let built: Statements | undefined;
  return () => {
    built ??= build();
    return built;
  };
}

/** Like `preparedOnce`, one statement per key (a row limit written into the text, see `orderedLimit`). */
export function preparedPer<Key, Statement>(build: (key: Key) => Statement): (key: Key) => Statement {
  const built = new Map<Key, Statement>();
  return (key) => {
    let statement = built.get(key);
    if (statement === undefined) {
      statement = build(key);
      built.set(key, statement);
    }
    return statement;
  };
}

/**
 * `order by <order> limit <rows>` with the row count written into the statement's text, for `orderBy`. drizzle binds
 * `.limit(n)` as a parameter, and the runtime's SQLite reads a bound LIMIT's value when it plans the statement, so it
 * marks the statement to be parsed and planned again each time that parameter is bound: every run. Traced with a probe
 * on `sqlite3Reprepare` in the benchmark, the inbox take and the history window were re-prepared on every turn. Each
 * distinct count is its own statement text, which the runtime caches like any other.
 */
export function orderedLimit(order: SQL, rows: number): SQL {
  if (!Number.isSafeInteger(rows) || rows < 0)
    throw new RangeError(`a row limit must be a whole number ≥ 0, not ${rows}`);
  return sql`${order} limit ${sql.raw(String(rows))}`;
}
