import { CLOUDFLARE_PRICES, PRICE_SOURCES, PRICES_READ_ON, type PriceTable } from "../src/budget/platform-cost.ts";
import { COUNT_NAMES, type OperationCounts } from "./tally-snapshot.ts";

/**
 * What a message costs on Cloudflare: counted operations × published prices, in US dollars. Pure (counts and a price
 * table in, dollars out); the counts come from the benchmark's cost scenario, the prices from Cloudflare's pages
 * (PRICE_SOURCES, read on PRICES_READ_ON). The prices are the Workers Paid plan's rates beyond its included usage:
 * the marginal cost of one more message once the $5 a month and its allowances are used up.
 */

// The price table is the bot's own (/status estimates a chat's platform share with it).
export { CLOUDFLARE_PRICES, PRICE_SOURCES, PRICES_READ_ON, type PriceTable };

/** A model's price in USD per million tokens (the bot's MODEL_PRICES format). */
export interface ModelPrice {
  input: number;
  output: number;
}

/** What the benchmark configures for its fake model (MODEL_PRICES), at gpt-4o-mini's list price. */
export const BENCH_MODEL = { name: "gpt-bench", price: { input: 0.15, output: 0.6 } } as const;

/** Operations of some number of messages, with the isolate's sampled CPU time. */
export interface Usage extends OperationCounts {
  cpuMs: number;
}

interface CostLine {
  item: string;
  quantity: number;
  dollars: number;
}

export interface PlatformCost {
  lines: CostLine[];
  total: number;
}

/**
 * The platform's bill for `usage`. CPU is charged at the Workers rate for all the isolate's CPU: under `wrangler dev`
 * the Worker and its objects share one isolate, and an object's CPU is not billed as CPU (its duration is), so this
 * is an upper bound of that line. Deleted alarms and R2's free operations are not priced.
 */
export function platformCost(usage: Usage, prices: PriceTable = CLOUDFLARE_PRICES): PlatformCost {
  const perMillion = (quantity: number, price: number) => (quantity * price) / 1_000_000;
  const gbSeconds = (usage.doActiveMs / 1000) * prices.doMemoryGb;
  const sqliteRowsRead = usage.sqlRowsRead + usage.storageKeysRead;
  const sqliteRowsWritten = usage.sqlRowsWritten + usage.storageKeysWritten + usage.alarmsSet;
  const doRequests = usage.doRequests + usage.alarms;
  const lines: CostLine[] = [
    {
      item: "Worker requests",
      quantity: usage.workerRequests,
      dollars: perMillion(usage.workerRequests, prices.workerRequestsPerMillion),
    },
    { item: "CPU ms", quantity: usage.cpuMs, dollars: perMillion(usage.cpuMs, prices.cpuMsPerMillion) },
    { item: "DO requests", quantity: doRequests, dollars: perMillion(doRequests, prices.doRequestsPerMillion) },
    { item: "DO GB-s", quantity: gbSeconds, dollars: perMillion(gbSeconds, prices.doGbSecondsPerMillion) },
    {
      item: "SQLite rows read",
      quantity: sqliteRowsRead,
      dollars: perMillion(sqliteRowsRead, prices.sqliteRowsReadPerMillion),
    },
    {
      item: "SQLite rows written",
      quantity: sqliteRowsWritten,
      dollars: perMillion(sqliteRowsWritten, prices.sqliteRowsWrittenPerMillion),
    },
    {
      item: "D1 rows read",
      quantity: usage.d1RowsRead,
      dollars: perMillion(usage.d1RowsRead, prices.d1RowsReadPerMillion),
    },
    {
      item: "D1 rows written",
      quantity: usage.d1RowsWritten,
      dollars: perMillion(usage.d1RowsWritten, prices.d1RowsWrittenPerMillion),
    },
    { item: "KV reads", quantity: usage.kvReads, dollars: perMillion(usage.kvReads, prices.kvReadsPerMillion) },
    { item: "KV writes", quantity: usage.kvWrites, dollars: perMillion(usage.kvWrites, prices.kvWritesPerMillion) },
    {
      item: "KV deletes",
      quantity: usage.kvDeletes,
      dollars: perMillion(usage.kvDeletes, prices.kvDeletesPerMillion),
    },
    { item: "KV lists", quantity: usage.kvLists, dollars: perMillion(usage.kvLists, prices.kvListsPerMillion) },
    { item: "R2 class A", quantity: usage.r2ClassA, dollars: perMillion(usage.r2ClassA, prices.r2ClassAPerMillion) },
    { item: "R2 class B", quantity: usage.r2ClassB, dollars: perMillion(usage.r2ClassB, prices.r2ClassBPerMillion) },
  ];
  return { lines, total: lines.reduce((sum, line) => sum + line.dollars, 0) };
}

/** A model's bill for some tokens. */
export function modelCost(tokens: { input: number; output: number }, price: ModelPrice): number {
  return (tokens.input * price.input + tokens.output * price.output) / 1_000_000;
}

/** Storage that stays: dollars a month for `bytes` kept in Durable Object SQLite. */
export function storageCostPerMonth(bytes: number, prices: PriceTable = CLOUDFLARE_PRICES): number {
  return (bytes / 1e9) * prices.sqliteGbMonth;
}

/** `usage` scaled by `factor` (a sum over n messages × 1,000 / n: the figures per 1,000 messages). */
export function scaleUsage(usage: Usage, factor: number): Usage {
  const scaled: Usage = { ...usage, cpuMs: usage.cpuMs * factor };
  for (const name of COUNT_NAMES) scaled[name] = usage[name] * factor;
  return scaled;
}

/** What `usage` has beyond `base`, item by item. */
export function subtractUsage(usage: Usage, base: Usage): Usage {
  const result: Usage = { ...usage, cpuMs: usage.cpuMs - base.cpuMs };
  for (const name of COUNT_NAMES) result[name] = usage[name] - base[name];
  return result;
}
