import type { ListedTool } from "./connection.ts";

/** Servers remembered per isolate; the oldest goes first past this. */
const MAX_ENTRIES = 200;

/**
 * Tool lists of MCP servers, kept in memory per isolate (a chat object's, or the Worker's for the admin API) for
 * MCP_LIST_CACHE_SECONDS, keyed by the server's URL and a hash of the headers it is reached with. A turn that calls
 * no MCP tool then makes no request to the server at all. A failed listing is not kept: the next turn asks again.
 */
export class ListingCache {
  private readonly entries = new Map<string, { tools: ListedTool[]; listedAt: number; until: number }>();

  get(identity: string, now: number): { tools: ListedTool[]; listedAt: number } | undefined {
    const entry = this.entries.get(identity);
    if (entry === undefined) return undefined;
    if (entry.until <= now) {
      this.entries.delete(identity);
      return undefined;
    }
    return entry;
  }

  put(identity: string, tools: ListedTool[], now: number, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.entries.delete(identity);
    this.entries.set(identity, { tools, listedAt: now, until: now + ttlMs });
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
