/**
 * FTS5 terms from plain words: each one quoted (so nothing in it is FTS5 syntax), and from four characters a prefix
 * too. The same for the history index (the chat object's SQLite) and the memories index (D1).
 */
export function ftsTerms(words: readonly string[]): string[] {
  return words
    .filter((word) => word !== "")
    .map((word) => `"${word.replaceAll('"', '""')}"${[...word].length >= 4 ? "*" : ""}`);
}

/** A MATCH expression any of whose words may match (BM25 ranks rows with more and rarer words first); or none. */
export function ftsExpression(words: readonly string[]): string | undefined {
  const terms = ftsTerms(words);
  return terms.length === 0 ? undefined : terms.join(" OR ");
}
