const MAX_WORDS = 12;

/**
 * Words a question is made of that say little about what is looked for. English only: in other languages every word
 * is kept, and BM25's weighting (frequent words count little) does the same job more slowly.
 */
const STOPWORDS = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have he her his how i if in into is " +
    "it its me my no not of on or our she so than that the their them then there these they this to too us was we " +
    "were what when where which who why will with would you your about said say tell told remember"
  ).split(" "),
);

/**
 * The words of a search: lower-case runs of letters and digits (so nothing in them is query syntax), question words
 * left out unless nothing else is left, each once, at most twelve.
 */
export function searchWords(query: string): string[] {
  const all = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  const meaningful = all.filter((word) => !STOPWORDS.has(word));
  return (meaningful.length > 0 ? meaningful : all).slice(0, MAX_WORDS);
}
