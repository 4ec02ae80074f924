/**
 * An MCP tool's arguments checked against the JSON Schema its server listed, before the call goes out: the model is
 * told in words what it got wrong (`#/a: must be a number, not a string`) without a round trip to the server. The
 * keywords tool schemas use (zod's, pydantic's and hand-written ones: draft 2020-12 and draft-07) are checked as
 * @cfworker/json-schema checks them, which its test compares; anything else (`format`, which 2020-12 makes an
 * annotation, remote `$ref`s, `unevaluated*`) is left to the server, which MCP requires to check its own arguments.
 * A library for this cost the Worker 6 KiB gzip of its 250 for the few chats that have an MCP server; no code is
 * generated (Workers forbid `new Function`).
 */
export function argumentsCheck(
  schema: Record<string, unknown>,
): (value: unknown) => { valid: boolean; errorMessage?: string } {
  return (value) => {
    const problems = problemsOf(value, schema, "#", { root: schema, refs: 0, patterns: new Map() });
    return problems.length === 0 ? { valid: true } : { valid: false, errorMessage: problems.join("; ") };
  };
}

type Schema = Record<string, unknown>;

interface Walk {
  root: Schema;
  /** `$ref`s followed on the way here: a schema that refers to itself without descending stops at a bound. */
  refs: number;
  patterns: Map<string, RegExp | undefined>;
}

const MAX_REFS = 64;

function problemsOf(value: unknown, schema: unknown, at: string, walk: Walk): string[] {
  if (schema === false) return [`${at}: no value is allowed here`];
  if (!isObject(schema)) return [];
  const problems = [
    ...refProblems(value, schema, at, walk),
    ...typeProblems(value, schema, at),
    ...combinedProblems(value, schema, at, walk),
  ];
  if (typeof value === "string") problems.push(...stringProblems(value, schema, at, walk));
  else if (typeof value === "number") problems.push(...numberProblems(value, schema, at));
  else if (Array.isArray(value)) problems.push(...arrayProblems(value, schema, at, walk));
  else if (isObject(value)) problems.push(...objectProblems(value, schema, at, walk));
  return problems;
}

function refProblems(value: unknown, schema: Schema, at: string, walk: Walk): string[] {
  if (typeof schema.$ref !== "string" || walk.refs >= MAX_REFS) return [];
  const target = resolve(walk.root, schema.$ref);
  return target === undefined ? [] : problemsOf(value, target, at, { ...walk, refs: walk.refs + 1 });
}

/** A reference within the same document (`#`, `#/$defs/x`, `#/definitions/x`); others are the server's to check. */
function resolve(root: Schema, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const part of ref.slice(2).split("/")) {
    let key: string;
    try {
      key = decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      return undefined;
    }
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function typeProblems(value: unknown, schema: Schema, at: string): string[] {
  const problems: string[] = [];
  const types = typeof schema.type === "string" ? [schema.type] : Array.isArray(schema.type) ? schema.type : [];
  const kind = kindOf(value);
  if (types.length > 0 && !types.some((type) => type === kind || (type === "integer" && Number.isInteger(value)))) {
    problems.push(`${at}: must be ${types.map(String).join(" or ")}, not ${kind}`);
  }
  if ("const" in schema && !sameJson(value, schema.const))
    problems.push(`${at}: must be ${JSON.stringify(schema.const)}`);
  if (Array.isArray(schema.enum) && !schema.enum.some((choice) => sameJson(value, choice))) {
    problems.push(`${at}: must be one of ${schema.enum.map((choice) => JSON.stringify(choice)).join(", ")}`);
  }
  return problems;
}

function combinedProblems(value: unknown, schema: Schema, at: string, walk: Walk): string[] {
  const problems: string[] = [];
  const fits = (part: unknown) => problemsOf(value, part, at, walk).length === 0;
  if (Array.isArray(schema.allOf)) problems.push(...schema.allOf.flatMap((part) => problemsOf(value, part, at, walk)));
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some(fits)) problems.push(`${at}: matches none of its choices`);
  if (Array.isArray(schema.oneOf)) {
    const matched = schema.oneOf.filter(fits).length;
    if (matched !== 1) problems.push(`${at}: must match exactly one of its choices, not ${matched}`);
  }
  if ("not" in schema && fits(schema.not)) problems.push(`${at}: must not match the schema under "not"`);
  if ("if" in schema) {
    const branch = fits(schema.if) ? schema.then : schema.else;
    problems.push(...problemsOf(value, branch, at, walk));
  }
  return problems;
}

function stringProblems(value: string, schema: Schema, at: string, walk: Walk): string[] {
  const problems: string[] = [];
  const length = [...value].length;
  if (typeof schema.minLength === "number" && length < schema.minLength) {
    problems.push(`${at}: must be at least ${schema.minLength} characters`);
  }
  if (typeof schema.maxLength === "number" && length > schema.maxLength) {
    problems.push(`${at}: must be at most ${schema.maxLength} characters`);
  }
  if (typeof schema.pattern === "string" && pattern(schema.pattern, walk)?.test(value) === false) {
    problems.push(`${at}: must match ${schema.pattern}`);
  }
  return problems;
}

/** A schema's regular expression, compiled once per check; one JavaScript cannot read is not checked. */
function pattern(source: string, walk: Walk): RegExp | undefined {
  if (!walk.patterns.has(source)) {
    let compiled: RegExp | undefined;
    try {
      compiled = new RegExp(source, "u");
    } catch {
      compiled = undefined;
    }
    walk.patterns.set(source, compiled);
  }
  return walk.patterns.get(source);
}

function numberProblems(value: number, schema: Schema, at: string): string[] {
  const problems: string[] = [];
  const bound = (keyword: string, fails: (limit: number) => boolean, words: string) => {
    const limit = schema[keyword];
    if (typeof limit === "number" && fails(limit)) problems.push(`${at}: must be ${words} ${limit}`);
  };
  bound("minimum", (limit) => value < limit, "at least");
  bound("maximum", (limit) => value > limit, "at most");
  bound("exclusiveMinimum", (limit) => value <= limit, "more than");
  bound("exclusiveMaximum", (limit) => value >= limit, "less than");
  bound("multipleOf", (divisor) => divisor > 0 && !isMultipleOf(value, divisor), "a multiple of");
  return problems;
}

/** Exact for decimals as JSON writes them (0.3 is a multiple of 0.1), as the library's BigInt arithmetic is. */
function isMultipleOf(value: number, divisor: number): boolean {
  const quotient = value / divisor;
  return (
    Number.isFinite(quotient) && Math.abs(quotient - Math.round(quotient)) < 1e-9 * Math.max(1, Math.abs(quotient))
  );
}

function arrayProblems(value: unknown[], schema: Schema, at: string, walk: Walk): string[] {
  const problems: string[] = [];
  const tuple = Array.isArray(schema.prefixItems)
    ? schema.prefixItems
    : Array.isArray(schema.items)
      ? schema.items
      : [];
  const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
  value.forEach((item, index) => {
    const itemSchema = index < tuple.length ? tuple[index] : rest;
    problems.push(...problemsOf(item, itemSchema, `${at}/${index}`, walk));
  });
  if (typeof schema.minItems === "number" && value.length < schema.minItems) {
    problems.push(`${at}: must have at least ${schema.minItems} items`);
  }
  if (typeof schema.maxItems === "number" && value.length > schema.maxItems) {
    problems.push(`${at}: must have at most ${schema.maxItems} items`);
  }
  if (schema.uniqueItems === true && value.some((item, index) => value.findIndex((o) => sameJson(o, item)) !== index)) {
    problems.push(`${at}: must not repeat an item`);
  }
  if ("contains" in schema) {
    const count = value.filter((item) => problemsOf(item, schema.contains, at, walk).length === 0).length;
    const least = typeof schema.minContains === "number" ? schema.minContains : 1;
    const most = typeof schema.maxContains === "number" ? schema.maxContains : Number.POSITIVE_INFINITY;
    if (count < least || count > most) problems.push(`${at}: has ${count} items matching "contains"`);
  }
  return problems;
}

function objectProblems(value: Record<string, unknown>, schema: Schema, at: string, walk: Walk): string[] {
  const problems: string[] = [];
  const keys = Object.keys(value);
  const properties = isObject(schema.properties) ? schema.properties : {};
  const patterns = isObject(schema.patternProperties) ? Object.entries(schema.patternProperties) : [];
  for (const key of keys) {
    const where = `${at}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    const matching = patterns.filter(([source]) => pattern(source, walk)?.test(key) === true);
    if (Object.hasOwn(properties, key)) problems.push(...problemsOf(value[key], properties[key], where, walk));
    for (const [, part] of matching) problems.push(...problemsOf(value[key], part, where, walk));
    if (!Object.hasOwn(properties, key) && matching.length === 0 && "additionalProperties" in schema) {
      if (schema.additionalProperties === false) problems.push(`${where}: is not a known property`);
      else problems.push(...problemsOf(value[key], schema.additionalProperties, where, walk));
    }
    if ("propertyNames" in schema) problems.push(...problemsOf(key, schema.propertyNames, where, walk));
  }
  const required = Array.isArray(schema.required) ? schema.required : [];
  const dependent = isObject(schema.dependentRequired) ? Object.entries(schema.dependentRequired) : [];
  const needed = [
    ...required,
    ...dependent.flatMap(([key, list]) => (key in value && Array.isArray(list) ? list : [])),
  ];
  for (const key of new Set(needed)) {
    if (typeof key === "string" && !Object.hasOwn(value, key)) problems.push(`${at}: must have the property "${key}"`);
  }
  if (typeof schema.minProperties === "number" && keys.length < schema.minProperties) {
    problems.push(`${at}: must have at least ${schema.minProperties} properties`);
  }
  if (typeof schema.maxProperties === "number" && keys.length > schema.maxProperties) {
    problems.push(`${at}: must have at most ${schema.maxProperties} properties`);
  }
  return problems;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Equal as JSON values (key order aside). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]))
  );
}
