/** The constant of reciprocal rank fusion: the value its authors found robust across collections. */
const RRF_K = 60;

/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): each ranking adds 1 / (k + rank) to an item's score,
 * so an item ranked well by both the words (BM25) and the meaning (vectors) comes first, and one found by only one
 * of them still counts. Ties keep the order in which the items were first seen.
 */
export function fuseRankings(rankings: readonly (readonly number[])[], k = RRF_K): number[] {
  const scores = new Map<number, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, index) => {
      scores.set(id, (scores.get(id) ?? 0) + 1 / (k + index + 1));
    });
  }
  return [...scores.entries()].sort((left, right) => right[1] - left[1]).map(([id]) => id);
}
