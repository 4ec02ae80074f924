export interface Summary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** Percentiles by the nearest-rank method. */
export function summarize(values: number[]): Summary {
  const sorted = [...values].sort((left, right) => left - right);
  const rank = (fraction: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? 0;
  return { count: sorted.length, p50: rank(0.5), p95: rank(0.95), p99: rank(0.99), max: sorted.at(-1) ?? 0 };
}
