import { describe, expect, it } from "vitest";
import { jsonWith, toolListJson } from "../../../src/adapters/ready-json.ts";
import type { ModelTool } from "../../../src/protocol/run-payload.ts";

const tool = (name: string): ModelTool => ({
  name,
  description: `The "${name}" tool`,
  inputSchema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
});

describe("ready JSON in a request body", () => {
  it("is the JSON of the body with the ready members in it", () => {
    const body = { model: "m", messages: [{ role: "user", content: 'say "hi"\n' }] };
    const tools = [tool("search"), tool("remember")];
    const json = jsonWith(body, { tools: JSON.stringify(tools) });
    expect(JSON.parse(json)).toEqual({ ...body, tools });
    expect(jsonWith({}, { tools: "[]" })).toBe('{"tools":[]}');
    expect(jsonWith(body, undefined)).toBe(JSON.stringify(body));
    expect(jsonWith(body, {})).toBe(JSON.stringify(body));
  });

  it("makes each tool's JSON once, in the provider's shape, and lists them in order", () => {
    const shaped: string[] = [];
    const listJson = toolListJson((each) => {
      shaped.push(each.name);
      return { type: "function", function: { name: each.name, parameters: each.inputSchema } };
    });
    const [search, remember] = [tool("search"), tool("remember")];
    const first = listJson([search, remember]);
    expect(JSON.parse(first)).toEqual([
      { type: "function", function: { name: "search", parameters: search.inputSchema } },
      { type: "function", function: { name: "remember", parameters: remember.inputSchema } },
    ]);
    expect(JSON.parse(listJson([remember]))).toEqual([JSON.parse(first)[1]]);
    expect(listJson([search, remember])).toBe(first);
    expect(shaped).toEqual(["search", "remember"]);
    expect(listJson([])).toBe("[]");
  });
});
