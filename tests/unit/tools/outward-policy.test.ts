import { describe, expect, it } from "vitest";
import { TurnTrust } from "../../../src/tools/context.ts";
import { addressesIn, noteAddressesPeopleWrote, outwardHold } from "../../../src/tools/outward-policy.ts";

describe("the data-out rule", () => {
  const fetchOf = (address: string) => ({ kind: "fetch", address }) as const;

  it("lets a trusted turn fetch anything", () => {
    expect(outwardHold(new TurnTrust(), fetchOf("https://a.example/x?d=1"))).toBeUndefined();
  });

  it("holds a composed address with a query in an untrusted turn, and any composed one once it holds private data", () => {
    const trust = new TurnTrust("a web page");
    expect(outwardHold(trust, fetchOf("https://a.example/x?d=secret"))?.action).toBe(
      "fetch https://a.example/x?d=secret",
    );
    expect(outwardHold(trust, fetchOf("https://a.example/secret"))).toBeUndefined();
    trust.markPrivate("the chat's remembered facts");
    const held = outwardHold(trust, fetchOf("https://a.example/secret"));
    expect(held?.source).toContain("a web page");
    expect(held?.source).toContain("the chat's remembered facts");
  });

  it("lets an untrusted turn with private data fetch an address it was shown as it is", () => {
    const trust = new TurnTrust("a web page", { privateFrom: "the chat's remembered facts" });
    noteAddressesPeopleWrote(trust, [{ role: "user", content: "read https://a.example/page?id=3, please" }]);
    trust.noteShown(addressesIn("See also https://b.example/next#top."));
    expect(outwardHold(trust, fetchOf("https://a.example/page?id=3"))).toBeUndefined();
    expect(outwardHold(trust, fetchOf("https://b.example/next"))).toBeUndefined();
    expect(outwardHold(trust, fetchOf("https://a.example/page?id=4"))).toBeDefined();
    // Text the model wrote (an assistant message) shows nothing.
    const other = new TurnTrust("a web page");
    noteAddressesPeopleWrote(other, [{ role: "assistant", content: "https://c.example/?d=1" }]);
    expect(outwardHold(other, fetchOf("https://c.example/?d=1"))).toBeDefined();
  });

  it("holds an MCP tool not declared read-only, and a helper from a turn holding both marks", () => {
    const trust = new TurnTrust("the MCP servers' tool descriptions");
    expect(outwardHold(trust, { kind: "mcp", server: "s", tool: "t", readOnly: true })).toBeUndefined();
    expect(outwardHold(trust, { kind: "mcp", server: "s", tool: "t", readOnly: false })?.action).toBe(
      "run t on the MCP server s",
    );
    expect(outwardHold(trust, { kind: "helper", task: "x" })).toBeUndefined();
    trust.markPrivate("the chat's searched history");
    expect(outwardHold(trust, { kind: "helper", task: "x" })).toBeDefined();
  });

  it("a helper's turn inherits both marks", () => {
    const trust = new TurnTrust("a web page", { privateFrom: "the chat's remembered facts" });
    expect(trust.privateSource).toBe("the chat's remembered facts");
    expect(outwardHold(trust, fetchOf("https://a.example/anything"))).toBeDefined();
  });
});
