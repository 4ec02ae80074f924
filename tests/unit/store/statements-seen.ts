/**
 * Records the SQL statements a chat object's stores run from now on that match `pattern`, so a test can count the
 * reads a store's memory saves.
 */
export function statementsSeen(storage: DurableObjectStorage, pattern: RegExp): string[] {
  const seen: string[] = [];
  const exec = storage.sql.exec.bind(storage.sql);
  storage.sql.exec = ((query: string, ...bindings: unknown[]) => {
    if (pattern.test(query)) seen.push(query);
    return exec(query, ...bindings);
  }) as typeof storage.sql.exec;
  return seen;
}
