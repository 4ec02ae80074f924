/**
 * Writes ./methods.json: every Bot API method, its fields and the shapes of the objects they take, from the Bot API
 * 10.5 spec that ./spec/ puts together: Bot API 10.3 as `@gramio/types` types it (./spec/base-spec.ts), and the
 * changes of 10.4 and 10.5 transcribed from Telegram's documentation (./spec/bot-api-10.4-10.5.json), see
 * ./spec/README.md. The fakes answer a method that is not in it as Telegram does (404) and record any method or field
 * that is not in it as a violation. Run `node scripts/bot-api/generate-methods.ts` after changing either; a test
 * fails while the checked-in file is out of date.
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { Field, MethodTable, MethodTableJson, Shape } from "./method-table.ts";
import { applyDelta } from "./spec/apply-delta.ts";
import { BASE_PACKAGE, basePackageVersion, readBaseSpec } from "./spec/base-spec.ts";
import type { Spec, SpecDelta, SpecField } from "./spec/spec-format.ts";
import { fieldKey, shapeText } from "./type-text.ts";

const DELTA_JSON = new URL("./spec/bot-api-10.4-10.5.json", import.meta.url);
export const METHODS_JSON = new URL("./methods.json", import.meta.url);

export function readDelta(): SpecDelta {
  return JSON.parse(readFileSync(DELTA_JSON, "utf8")) as SpecDelta;
}

/** The spec the fakes check against: the base package's with the delta's changes. */
export function readSpec(): Spec {
  const delta = readDelta();
  const installed = basePackageVersion();
  if (delta.base.package !== BASE_PACKAGE || delta.base.version !== installed) {
    throw new Error(
      `the delta is written for ${delta.base.package} ${delta.base.version}, not ${BASE_PACKAGE} ${installed}`,
    );
  }
  return applyDelta(readBaseSpec(), delta);
}

/** The methods and, by name, every type their fields take (at any depth), as the fakes check them. */
function methodTableOf(spec: Spec, source: string): MethodTable {
  const shapes: Record<string, Shape> = {};
  const named = (name: string): Shape => {
    const type = spec.types[name];
    // A type the spec does not describe (WidgetQueryType: not transcribed) takes any value.
    if (!type || name === "InputFile") return { kind: "any" };
    if (!(name in shapes)) {
      shapes[name] = { kind: "any" }; // placeholder while reading, for recursive types
      shapes[name] = type.subtypes
        ? union(type.subtypes.map((subtype) => typeShape(subtype)))
        : { kind: "object", fields: fieldsOf(type.fields ?? [], true) };
    }
    return { kind: "ref", name };
  };
  const typeShape = (text: string, values: SpecField["values"] = [], inObject = false): Shape => {
    if (text.startsWith("Array of ")) {
      const elements = text.slice("Array of ".length).split(" | ");
      return { kind: "array", of: union(elements.map((element) => typeShape(element, values, inObject))) };
    }
    // A method's InputFile is a part of a multipart request; inside a JSON object a file can only be named by a
    // string (a file_id, a URL or attach://<name>), as the docs' "String" there says.
    if (text === "InputFile" && inObject) return { kind: "string" };
    const listed = (kind: "string" | "number" | "boolean"): Shape => {
      const own = values.filter((value) => typeof value === kind);
      return own.length > 0 ? { kind: "literal", values: own } : { kind };
    };
    switch (text) {
      case "Integer":
      case "Float":
        return listed("number");
      case "String":
        return listed("string");
      case "Boolean":
        return listed("boolean");
      case "True":
        return { kind: "literal", values: [true] };
      default:
        return named(text);
    }
  };
  const fieldsOf = (fields: SpecField[], inObject = false): Record<string, Field> =>
    Object.fromEntries(
      fields.map((field) => [
        field.name,
        {
          required: field.required,
          shape: union(field.types.map((type) => typeShape(type, field.values, inObject))),
        },
      ]),
    );
  const methods = Object.fromEntries(
    Object.entries(spec.methods).map(([name, method]) => [name, fieldsOf(method.fields)]),
  );
  const sortedShapes = Object.fromEntries(Object.entries(shapes).sort(([a], [b]) => a.localeCompare(b)));
  return { source, methods, shapes: sortedShapes };
}

export function readMethodTable(): MethodTable {
  const spec = readSpec();
  const delta = readDelta();
  const source = `${spec.version} (${spec.release_date}): ${delta.base.package} ${delta.base.version} (${delta.base.bot_api}) and spec/bot-api-10.4-10.5.json`;
  return methodTableOf(spec, source);
}

/** A union, flattened, without repeats, with its literals merged into one list. */
function union(members: Shape[]): Shape {
  const flat = members.flatMap((member) => (member.kind === "union" ? member.of : [member]));
  if (flat.some((member) => member.kind === "any")) return { kind: "any" };
  const literals = flat.flatMap((member) => (member.kind === "literal" ? member.values : []));
  const others = flat.filter(
    (member, index) =>
      member.kind !== "literal" &&
      flat.findIndex((other) => JSON.stringify(other) === JSON.stringify(member)) === index,
  );
  const merged: Shape[] = literals.length > 0 ? [{ kind: "literal", values: literals }, ...others] : others;
  return merged.length === 1 ? merged[0]! : { kind: "union", of: merged };
}

/** The table as ./methods.json keeps it: each field and named shape as type text. */
export function methodTableJson(table: MethodTable): string {
  const fieldTexts = (fields: Record<string, Field>) =>
    Object.fromEntries(Object.entries(fields).map(([name, field]) => [fieldKey(name, field), shapeText(field.shape)]));
  const json: MethodTableJson = {
    source: table.source,
    methods: Object.fromEntries(Object.entries(table.methods).map(([name, fields]) => [name, fieldTexts(fields)])),
    shapes: Object.fromEntries(
      Object.entries(table.shapes).map(([name, shape]) => [
        name,
        shape.kind === "object" ? fieldTexts(shape.fields) : shapeText(shape),
      ]),
    ),
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const table = readMethodTable();
  writeFileSync(METHODS_JSON, methodTableJson(table));
  console.log(
    `${Object.keys(table.methods).length} methods and ${Object.keys(table.shapes).length} shapes from ${table.source}`,
  );
}
