/**
 * What the platform (Cloudflare) charges for a chat's turns, estimated: the operations a turn costs, as the
 * benchmark's cost scenario counted them (BENCHMARKS.md, "What a message costs"), at Cloudflare's published rates
 * beyond the Workers Paid plan's included usage. The bench prices its own counts with the same table.
 */

export interface PriceTable {
  /** Workers Standard: inbound requests and CPU time. */
  workerRequestsPerMillion: number;
  cpuMsPerMillion: number;
  /** Durable Objects compute: requests (RPC calls, fetches, alarms) and duration (GB-s at the memory each object is billed for). */
  doRequestsPerMillion: number;
  doGbSecondsPerMillion: number;
  doMemoryGb: number;
  /** SQLite in Durable Objects (the key-value methods and `setAlarm` are billed as rows too). */
  sqliteRowsReadPerMillion: number;
  sqliteRowsWrittenPerMillion: number;
  sqliteGbMonth: number;
  d1RowsReadPerMillion: number;
  d1RowsWrittenPerMillion: number;
  kvReadsPerMillion: number;
  kvWritesPerMillion: number;
  kvDeletesPerMillion: number;
  kvListsPerMillion: number;
  r2ClassAPerMillion: number;
  r2ClassBPerMillion: number;
}

export const PRICES_READ_ON = "2026-11-24";

export const PRICE_SOURCES = [
  "https://developers.cloudflare.com/workers/platform/pricing/",
  "https://developers.cloudflare.com/durable-objects/platform/pricing/",
  "https://developers.cloudflare.com/d1/platform/pricing/",
  "https://developers.cloudflare.com/kv/platform/pricing/",
  "https://developers.cloudflare.com/r2/pricing/",
] as const;

export const CLOUDFLARE_PRICES: PriceTable = {
  workerRequestsPerMillion: 0.3,
  cpuMsPerMillion: 0.02,
  doRequestsPerMillion: 0.15,
  doGbSecondsPerMillion: 12.5,
  // "Duration billing charges for the 128 MB of memory your Durable Object is allocated"; the page's own examples
  // turn seconds into GB-s as seconds × 128 MB / 1 GB.
  doMemoryGb: 0.128,
  sqliteRowsReadPerMillion: 0.001,
  sqliteRowsWrittenPerMillion: 1,
  sqliteGbMonth: 0.2,
  d1RowsReadPerMillion: 0.001,
  d1RowsWrittenPerMillion: 1,
  kvReadsPerMillion: 0.5,
  kvWritesPerMillion: 5,
  kvDeletesPerMillion: 5,
  kvListsPerMillion: 5,
  r2ClassAPerMillion: 4.5,
  r2ClassBPerMillion: 0.36,
};

/** The billable operations of one unit of work (its duration aside, which each record carries). */
interface Operations {
  workerRequests: number;
  cpuMs: number;
  doRequests: number;
  sqliteRowsRead: number;
  sqliteRowsWritten: number;
  d1RowsRead: number;
  d1RowsWritten: number;
}

/**
 * From the cost scenario of the full run of 2026-11-25 07:06: a plain turn (the webhook, the enqueue, the turn's
 * rows, its share of a usage flush and its alarm), what each tool call adds (a tool turn with three calls, less a plain
 * turn, over three), and a summary pass (from 2026-11-24). A plain turn's CPU is the median of the cpu scenario's A/B
 * of 07:20-07:33 the same day (1.5 ms, 30 runs of the plain bot; the cost scenario's counting wrappers add to theirs);
 * a tool call's is from the cost scenario; a summary pass's is below what its fit tells apart from nothing, and
 * counted as 1 ms.
 */
const PER_TURN: Operations = {
  workerRequests: 1,
  cpuMs: 1.5,
  doRequests: 2,
  sqliteRowsRead: 19,
  sqliteRowsWritten: 15,
  d1RowsRead: 3,
  d1RowsWritten: 4,
};
const PER_TOOL_CALL: Operations = {
  workerRequests: 0,
  cpuMs: 1.4,
  doRequests: 0,
  sqliteRowsRead: 6.7,
  sqliteRowsWritten: 2.3,
  d1RowsRead: 10,
  d1RowsWritten: 1.3,
};
const PER_SUMMARY: Operations = {
  workerRequests: 0,
  cpuMs: 1,
  doRequests: 0,
  sqliteRowsRead: 53,
  sqliteRowsWritten: 6,
  d1RowsRead: 1,
  d1RowsWritten: 3,
};

function priced(operations: Operations, prices: PriceTable): number {
  return (
    (operations.workerRequests * prices.workerRequestsPerMillion +
      operations.cpuMs * prices.cpuMsPerMillion +
      operations.doRequests * prices.doRequestsPerMillion +
      operations.sqliteRowsRead * prices.sqliteRowsReadPerMillion +
      operations.sqliteRowsWritten * prices.sqliteRowsWrittenPerMillion +
      operations.d1RowsRead * prices.d1RowsReadPerMillion +
      operations.d1RowsWritten * prices.d1RowsWrittenPerMillion) /
    1_000_000
  );
}

/** A chat's work over some time, as its usage records sum it up. */
export interface WorkDone {
  /** Records of every kind, summary passes included. */
  records: number;
  summaries: number;
  toolCalls: number;
  /** The records' wall time: how long the chat's object was kept busy (billed as duration). */
  durationMs: number;
}

/** The platform's charge for `work`, in US dollars (an estimate: per-turn counts from the benchmark). */
export function platformCostOf(work: WorkDone, prices: PriceTable = CLOUDFLARE_PRICES): number {
  const turns = Math.max(0, work.records - work.summaries);
  const duration = (work.durationMs / 1000) * prices.doMemoryGb * (prices.doGbSecondsPerMillion / 1_000_000);
  return (
    turns * priced(PER_TURN, prices) +
    work.toolCalls * priced(PER_TOOL_CALL, prices) +
    work.summaries * priced(PER_SUMMARY, prices) +
    duration
  );
}

/**
 * /status's line on today's platform cost: the estimate, and its share of the chat's whole cost beside the model's
 * (when the model has a price: MODEL_PRICES).
 */
export function platformLine(today: WorkDone & { costUsd: number }): string {
  const platform = platformCostOf(today);
  const turns = today.records - today.summaries;
  const what = `${dollars(platform)} for ${turns} ${turns === 1 ? "turn" : "turns"}`;
  if (today.costUsd <= 0) return `**Platform today (estimated):** ${what}; the model's price is not configured`;
  const share = (platform / (platform + today.costUsd)) * 100;
  return `**Platform today (estimated):** ${what}, ${share < 1 ? share.toFixed(1) : share.toFixed(0)} % of this chat's cost (the model's: ${dollars(today.costUsd)})`;
}

/** Dollars with two significant digits: platform costs are fractions of a cent. */
function dollars(amount: number): string {
  if (amount === 0) return "$0";
  if (amount >= 0.01) return `$${amount.toFixed(2)}`;
  if (amount < 0.000001) return "under $0.000001";
  return `$${amount.toPrecision(2)}`;
}
