import { describe, expect, it } from "vitest";
import { allowlistAllows, mcpServersSchema } from "../../../src/config/mcp-servers.ts";
import { McpServerError, scrub } from "../../../src/mcp/connection.ts";
import { FAILURE_TTL_MS, ListingCache } from "../../../src/mcp/listing-cache.ts";
import { MAX_MCP_RESULT_CHARS, resultText } from "../../../src/mcp/result-text.ts";

describe("MCP allowlist entries", () => {
  it("allow everything without a list, a tool by its name, or all of a server's tools with server__*", () => {
    expect(allowlistAllows(undefined, "docs__search")).toBe(true);
    expect(allowlistAllows(["docs__search"], "docs__search")).toBe(true);
    expect(allowlistAllows(["docs__search"], "docs__fetch")).toBe(false);
    expect(allowlistAllows(["docs__*"], "docs__fetch")).toBe(true);
    expect(allowlistAllows(["docs__*"], "doc__fetch")).toBe(false);
    expect(allowlistAllows(["docs__*"], "recall")).toBe(false);
    expect(allowlistAllows(["recall"], "recall")).toBe(true);
  });
});

describe("mcpServers", () => {
  it("refuses a name used twice and more than eight servers", () => {
    const server = (name: string) => ({ name, url: "https://mcp.example.com/mcp" });
    expect(mcpServersSchema.safeParse([server("a"), server("b")]).success).toBe(true);
    expect(mcpServersSchema.safeParse([server("a"), server("a")]).success).toBe(false);
    expect(mcpServersSchema.safeParse(Array.from({ length: 9 }, (_, index) => server(`s${index}`))).success).toBe(
      false,
    );
  });

  it("allows plain http only to this machine, and no credentials in the URL", () => {
    const valid = (url: string) => mcpServersSchema.safeParse([{ name: "a", url }]).success;
    expect(valid("http://127.0.0.1:8080/mcp")).toBe(true);
    expect(valid("http://localhost/mcp")).toBe(true);
    expect(valid("http://10.0.0.1/mcp")).toBe(false);
    expect(valid("https://user:pass@mcp.example.com/mcp")).toBe(false);
    expect(valid("ftp://mcp.example.com/mcp")).toBe(false);
  });
});

describe("an MCP result as text", () => {
  it("keeps text, names other blocks without their bytes, and falls back to structured content", () => {
    expect(
      resultText({
        content: [
          { type: "text", text: "first" },
          { type: "image", mimeType: "image/png", data: "AAAA" },
          { type: "resource_link", uri: "file:///a.txt", name: "a" },
          { type: "resource", resource: { uri: "file:///b.txt", text: "inline" } },
        ],
      }),
    ).toBe("first\n[image (image/png) not shown]\n[resource: file:///a.txt]\ninline");
    expect(resultText({ content: [], structuredContent: { total: 3 } })).toBe('{"total":3}');
    expect(resultText({ content: [] })).toBe("(the tool returned nothing)");
  });

  it("is cut at MAX_MCP_RESULT_CHARS", () => {
    const text = resultText({ content: [{ type: "text", text: "y".repeat(MAX_MCP_RESULT_CHARS + 10) }] });
    expect(text).toBe(`${"y".repeat(MAX_MCP_RESULT_CHARS)}\n\n[truncated at ${MAX_MCP_RESULT_CHARS} characters]`);
  });
});

describe("MCP errors and the listing cache", () => {
  it("scrub every resolved secret out of a message", () => {
    expect(scrub("401 for token abcd-1234 (abcd-1234)", ["abcd-1234"])).toBe("401 for token … (…)");
    expect(new McpServerError("docs", "could not connect").server).toBe("docs");
  });

  it("keep a listing for its time, then forget it; a zero time keeps nothing; a failure at most 30 s", () => {
    const cache = new ListingCache();
    const listing = { state: "ok" as const, tools: [{ name: "t", description: "", inputSchema: {} }], listedAt: 1_000 };
    cache.put("a", listing, 500);
    expect(cache.get("a", 1_400)).toMatchObject(listing);
    expect(cache.get("a", 1_500)).toBeUndefined();
    cache.put("b", listing, 0);
    expect(cache.get("b", 1_000)).toBeUndefined();
    cache.put("c", { state: "failed", problem: "down", listedAt: 1_000 }, 300_000);
    expect(cache.get("c", 1_000 + FAILURE_TTL_MS - 1)?.state).toBe("failed");
    expect(cache.get("c", 1_000 + FAILURE_TTL_MS)).toBeUndefined();
  });
});
