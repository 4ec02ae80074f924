import type { MethodTable, Shape } from "./method-table.ts";

/** A field an object has that its type does not know, by its path from the method's parameters. */
export interface UnknownField {
  path: string;
}

/**
 * The fields of `value` that `shape` does not know, at any depth. In a union of object types the member that fits
 * best is followed (all its required fields present and no unknown ones, else the fewest unknown ones).
 */
export function unknownFields(table: MethodTable, value: unknown, shape: Shape, path: string): UnknownField[] {
  const resolved = resolve(table, shape);
  switch (resolved.kind) {
    case "array":
      return Array.isArray(value)
        ? value.flatMap((item, index) => unknownFields(table, item, resolved.of, `${path}[${index}]`))
        : [];
    case "object": {
      if (!isRecord(value)) return [];
      return Object.entries(value).flatMap(([name, inner]) => {
        const field = resolved.fields[name];
        return field ? unknownFields(table, inner, field.shape, `${path}.${name}`) : [{ path: `${path}.${name}` }];
      });
    }
    case "union": {
      const members = flatten(table, resolved);
      if (Array.isArray(value)) {
        const array = members.find((member) => member.kind === "array");
        return array ? unknownFields(table, value, array, path) : [];
      }
      if (!isRecord(value)) return [];
      const objects = members.filter((member) => member.kind === "object");
      if (objects.length === 0) return [];
      const scored = objects.map((member) => {
        const unknown = Object.keys(value).filter((name) => !(name in member.fields)).length;
        const missing = Object.entries(member.fields).filter(([name, field]) => field.required && !(name in value));
        return { member, score: unknown * 2 + missing.length };
      });
      scored.sort((a, b) => a.score - b.score);
      return unknownFields(table, value, scored[0]!.member, path);
    }
    default:
      return [];
  }
}

function resolve(table: MethodTable, shape: Shape): Shape {
  let current = shape;
  for (let depth = 0; current.kind === "ref" && depth < 20; depth++)
    current = table.shapes[current.name] ?? { kind: "any" };
  return current;
}

function flatten(table: MethodTable, shape: Shape): Shape[] {
  const resolved = resolve(table, shape);
  return resolved.kind === "union" ? resolved.of.flatMap((member) => flatten(table, member)) : [resolved];
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
