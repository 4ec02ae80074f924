import type { ListedTool } from "./connection.ts";

/** Servers remembered per isolate; the oldest goes first past this. */
const MAX_ENTRIES = 200;
/**
 * A server that failed is not asked again for this long (at most MCP_LIST_CACHE_SECONDS): one that hangs would
 * otherwise hold every message back by MCP_TIMEOUT_SECONDS.
 */
export const FAILURE_TTL_MS = 30_000;

export type CachedListing =
  | { state: "ok"; tools: ListedTool[]; listedAt: number }
  | { state: "failed"; problem: string; listedAt: number };

/**
 * Tool lists of MCP servers, kept in memory per isolate (a chat object's, or the Worker's for the admin API) for
 * MCP_LIST_CACHE_SECONDS, keyed by the server's URL and a hash of the headers it is reached with. A turn that calls
 * no MCP tool then makes no request to the server at all. A failed listing is kept for FAILURE_TTL_MS.
 */
export class ListingCache {
  private readonly entries = new Map<string, CachedListing & { until: number }>();

  get(identity: string, now: number): CachedListing | undefined {
    const entry = this.entries.get(identity);
    if (entry === undefined) return undefined;
    if (entry.until <= now) {
      this.entries.delete(identity);
      return undefined;
    }
    return entry;
  }

  put(identity: string, listing: CachedListing, ttlMs: number): void {
    const keepFor = listing.state === "failed" ? Math.min(ttlMs, FAILURE_TTL_MS) : ttlMs;
    if (keepFor <= 0) return;
    this.entries.delete(identity);
    this.entries.set(identity, { ...listing, until: listing.listedAt + keepFor });
    while (this.entries.size > MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}

export const listingCache = new ListingCache();
