import table from "./methods.json" with { type: "json" };
import { fieldsOf, parseShape } from "./type-text.ts";

/**
 * The Bot API's methods, their fields and the shapes of the objects they take, generated from `@grammyjs/types` by
 * ./generate-methods.ts. A shape says which fields an object may have (so that a field Telegram does not know is
 * seen), not every rule of its values.
 */
export type Shape =
  | { kind: "any" }
  | { kind: "string" }
  | { kind: "number" }
  | { kind: "boolean" }
  | { kind: "literal"; values: (string | number | boolean)[] }
  | { kind: "array"; of: Shape }
  | { kind: "union"; of: Shape[] }
  | { kind: "object"; fields: Record<string, Field> }
  | { kind: "ref"; name: string };

export interface Field {
  required: boolean;
  shape: Shape;
}

export interface MethodTable {
  /** Which package and version the table was read from. */
  source: string;
  methods: Record<string, Record<string, Field>>;
  /** Named object types (interfaces and type aliases), by the name `ref` shapes use. */
  shapes: Record<string, Shape>;
}

/** ./methods.json: fields as `"name?": "type text"` (see ./type-text.ts), named shapes as fields or type text. */
export interface MethodTableJson {
  source: string;
  methods: Record<string, Record<string, string>>;
  shapes: Record<string, string | Record<string, string>>;
}

function methodTableOf(json: MethodTableJson): MethodTable {
  return {
    source: json.source,
    methods: Object.fromEntries(Object.entries(json.methods).map(([name, fields]) => [name, fieldsOf(fields)])),
    shapes: Object.fromEntries(
      Object.entries(json.shapes).map(([name, shape]) => [
        name,
        typeof shape === "string" ? parseShape(shape) : { kind: "object", fields: fieldsOf(shape) },
      ]),
    ),
  };
}

export const METHOD_TABLE: MethodTable = methodTableOf(table);
