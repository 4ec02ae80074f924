/**
 * An FTS5 MATCH expression from plain words: each one quoted (so nothing in it is FTS5 syntax), from four characters
 * a prefix too, any of them may match (BM25 ranks rows with more and rarer words first). Undefined without a word.
 * The same for the history index (the chat object's SQLite) and the memories index (D1).
 */
export function ftsExpression(words: readonly string[]): string | undefined {
  const terms = words
    .filter((word) => word !== "")
    .map((word) => `"${word.replaceAll('"', '""')}"${[...word].length >= 4 ? "*" : ""}`);
  return terms.length === 0 ? undefined : terms.join(" OR ");
}
