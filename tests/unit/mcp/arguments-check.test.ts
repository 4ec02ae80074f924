import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { argumentsCheck } from "../../../src/mcp/arguments-check.ts";

/**
 * Tool schemas as MCP servers list them: zod's (TypeScript servers), pydantic's (Python servers: `$defs`, `$ref`,
 * `anyOf` with null, `allOf` around a `$ref`) and hand-written ones, each with arguments a model might send.
 * @cfworker/json-schema (a full 2020-12 validator, which the Worker used before) says which pass.
 */
const zodSchema = z.toJSONSchema(
  z.object({
    query: z.string().min(1).max(20),
    limit: z.number().int().min(1).max(50).optional(),
    ratio: z.number().gt(0).lt(1).multipleOf(0.1).optional(),
    mode: z.enum(["fast", "deep"]).default("fast"),
    tags: z
      .array(z.string().regex(/^[a-z]+$/))
      .max(3)
      .optional(),
    exact: z.literal(true).optional(),
    filter: z
      .union([
        z.object({ kind: z.literal("date"), after: z.string() }),
        z.object({ kind: z.literal("id"), id: z.number() }),
      ])
      .optional(),
    extra: z.record(z.string(), z.number()).optional(),
    nothing: z.null().optional(),
  }),
) as Record<string, unknown>;

const pydanticSchema = {
  $defs: {
    Point: {
      properties: { x: { title: "X", type: "number" }, y: { title: "Y", type: "number" } },
      required: ["x", "y"],
      title: "Point",
      type: "object",
    },
    Colour: { enum: ["red", "green"], title: "Colour", type: "string" },
  },
  properties: {
    start: { $ref: "#/$defs/Point" },
    colour: { allOf: [{ $ref: "#/$defs/Colour" }], default: "red" },
    note: { anyOf: [{ type: "string", maxLength: 5 }, { type: "null" }], default: null, title: "Note" },
    path: { items: { $ref: "#/$defs/Point" }, type: "array", minItems: 1 },
  },
  required: ["start"],
  title: "draw_arguments",
  type: "object",
};

const handSchema = {
  type: "object",
  properties: {
    pair: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: false },
    legacy: { type: "array", items: [{ type: "boolean" }], additionalItems: { type: "string" } },
    unique: { type: "array", uniqueItems: true, contains: { const: 1 }, maxContains: 1 },
    headers: { type: "object", patternProperties: { "^x-": { type: "string" } }, additionalProperties: false },
    named: { type: "object", propertyNames: { pattern: "^[a-z]+$" }, minProperties: 1, maxProperties: 2 },
    choice: { oneOf: [{ type: "integer" }, { type: "number", minimum: 10 }] },
    notEmpty: { type: "string", not: { const: "" } },
    card: { type: "object", dependentRequired: { number: ["expiry"] } },
    conditional: {
      type: "object",
      if: { properties: { a: { const: 1 } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's keyword, not a thenable
      then: { required: ["b"] },
      else: { required: ["c"] },
    },
    either: { type: ["string", "null"], minLength: 2 },
    emoji: { type: "string", minLength: 2, maxLength: 2 },
    tree: { $ref: "#/$defs/node" },
  },
  $defs: { node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } } } },
  additionalProperties: { type: "number" },
};

const CASES: [string, Record<string, unknown>, unknown[]][] = [
  [
    "zod",
    zodSchema,
    [
      { query: "cats" },
      {},
      { query: "" },
      { query: "x".repeat(21) },
      { query: 5 },
      { query: "a", limit: 3 },
      { query: "a", limit: 3.5 },
      { query: "a", limit: 0 },
      { query: "a", limit: 3.0 },
      { query: "a", ratio: 0.3 },
      { query: "a", ratio: 0.35 },
      { query: "a", ratio: 1 },
      { query: "a", mode: "deep" },
      { query: "a", mode: "slow" },
      { query: "a", tags: ["ab", "cd"] },
      { query: "a", tags: ["ab", "CD"] },
      { query: "a", tags: ["a", "b", "c", "d"] },
      { query: "a", exact: true },
      { query: "a", exact: false },
      { query: "a", filter: { kind: "date", after: "2024" } },
      { query: "a", filter: { kind: "id", id: 4 } },
      { query: "a", filter: { kind: "id", after: "2024" } },
      { query: "a", extra: { b: 1 } },
      { query: "a", extra: { b: "1" } },
      { query: "a", nothing: null },
      { query: "a", nothing: 0 },
      { query: "a", unknown: 1 },
    ],
  ],
  [
    "pydantic",
    pydanticSchema,
    [
      { start: { x: 1, y: 2 } },
      { start: { x: 1 } },
      { start: { x: "1", y: 2 } },
      { start: { x: 1, y: 2 }, colour: "green" },
      { start: { x: 1, y: 2 }, colour: "blue" },
      { start: { x: 1, y: 2 }, note: null },
      { start: { x: 1, y: 2 }, note: "hi" },
      { start: { x: 1, y: 2 }, note: "too long" },
      { start: { x: 1, y: 2 }, path: [] },
      { start: { x: 1, y: 2 }, path: [{ x: 0, y: 0 }, { x: 1 }] },
      { colour: "red" },
    ],
  ],
  [
    "hand-written",
    handSchema,
    [
      {},
      { pair: ["a", 1] },
      { pair: ["a", 1, 2] },
      { pair: [1, "a"] },
      { legacy: [true, "x", "y"] },
      { legacy: [true, 1] },
      { unique: [1, 2] },
      { unique: [1, 1] },
      { unique: [2, 3] },
      { unique: [{ a: 1, b: 2 }, { b: 2, a: 1 }, 1] },
      { headers: { "x-a": "1" } },
      { headers: { "x-a": 1 } },
      { headers: { other: "1" } },
      { named: { ab: 1 } },
      { named: { Ab: 1 } },
      { named: {} },
      { named: { a: 1, b: 2, c: 3 } },
      { choice: 5 },
      { choice: 10 },
      { choice: 10.5 },
      { choice: 5.5 },
      { notEmpty: "" },
      { notEmpty: "x" },
      { card: { number: "1" } },
      { card: { number: "1", expiry: "2" } },
      { conditional: { a: 1, b: 2 } },
      { conditional: { a: 1, c: 2 } },
      { conditional: { a: 2, c: 2 } },
      { either: null },
      { either: "a" },
      { either: 1 },
      { emoji: "👍🏽" },
      { emoji: "ab" },
      { emoji: "👍" },
      { tree: { children: [{ children: [] }] } },
      { tree: { children: [{ children: 1 }] } },
      { loose: 1 },
      { loose: "1" },
    ],
  ],
];

describe("an MCP tool's arguments", () => {
  for (const [name, schema, values] of CASES) {
    it.each(values)(`are checked against a ${name} schema as @cfworker/json-schema checks them: %j`, (value) => {
      const expected = new Validator(schema, "2020-12", false).validate(value).valid;
      expect(argumentsCheck(schema)(value).valid).toBe(expected);
    });
  }

  it("says where and what is wrong, every problem at once", () => {
    const check = argumentsCheck(pydanticSchema);
    expect(check({ start: { x: "1" }, colour: "blue" })).toEqual({
      valid: false,
      errorMessage:
        '#/start/x: must be number, not string; #/start: must have the property "y"; #/colour: must be one of "red", "green"',
    });
    expect(argumentsCheck(zodSchema)({ query: "a", mode: "fast", extra: 1 }).errorMessage).toBe(
      "#/extra: must be object, not number",
    );
  });

  it("leaves to the server what it does not check: formats, remote references, patterns JavaScript cannot read", () => {
    const check = argumentsCheck({
      type: "object",
      properties: {
        when: { type: "string", format: "date-time" },
        remote: { $ref: "https://example.com/schema.json" },
        odd: { type: "string", pattern: "(?<" },
      },
    });
    expect(check({ when: "tomorrow", remote: 1, odd: "x" })).toEqual({ valid: true });
  });

  it("stops on a schema that refers to itself without going deeper", () => {
    expect(argumentsCheck({ $ref: "#" })({ a: 1 })).toEqual({ valid: true });
    expect(argumentsCheck({ type: "object", $ref: "#" })(1).valid).toBe(false);
  });
});
