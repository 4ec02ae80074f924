import type { Field, Shape } from "./method-table.ts";

/**
 * Shapes written as TypeScript-like type text (`"InlineKeyboardMarkup | ForceReply"`, `"string[][]"`,
 * `"{ url: string; width?: number }"`), so that ./methods.json stays small and reads like the types it came from.
 * `fieldKey`/`fieldsOf` spell an optional field with a trailing `?` on its name.
 */
export function shapeText(shape: Shape): string {
  switch (shape.kind) {
    case "any":
    case "string":
    case "number":
    case "boolean":
      return shape.kind;
    case "literal":
      return shape.values.map((value) => JSON.stringify(value)).join(" | ");
    case "array": {
      const inner = shapeText(shape.of);
      return shape.of.kind === "union" || (shape.of.kind === "literal" && shape.of.values.length > 1)
        ? `(${inner})[]`
        : `${inner}[]`;
    }
    case "union":
      return shape.of.map(shapeText).join(" | ");
    case "object": {
      const fields = Object.entries(shape.fields).map(
        ([name, field]) => `${fieldKey(name, field)}: ${shapeText(field.shape)}`,
      );
      return fields.length === 0 ? "{}" : `{ ${fields.join("; ")} }`;
    }
    case "ref":
      return shape.name;
  }
}

export function fieldKey(name: string, field: Field): string {
  return field.required ? name : `${name}?`;
}

/** `{ "text": "string", "parse_mode?": "ParseMode" }` → fields. */
export function fieldsOf(texts: Record<string, string>): Record<string, Field> {
  return Object.fromEntries(
    Object.entries(texts).map(([key, text]) => [
      key.replace(/\?$/, ""),
      { required: !key.endsWith("?"), shape: parseShape(text) },
    ]),
  );
}

const TOKEN = /\s*(?:("(?:[^"\\]|\\.)*")|(-?\d+(?:\.\d+)?)|([A-Za-z_$][\w$.]*)|(\[\]|[|(){}:;?]))/y;

export function parseShape(text: string): Shape {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.trimEnd().length) {
    const match = TOKEN.exec(text);
    if (!match) throw new Error(`cannot read type text at ${TOKEN.lastIndex}: ${text}`);
    tokens.push(match[1] ?? match[2] ?? match[3] ?? match[4]!);
  }
  let position = 0;
  const peek = () => tokens[position];
  const next = () => {
    const token = tokens[position++];
    if (token === undefined) throw new Error(`type text ends early: ${text}`);
    return token;
  };
  const expect = (token: string) => {
    if (next() !== token) throw new Error(`expected ${token} in type text: ${text}`);
  };

  const union = (): Shape => {
    const members = [postfix()];
    while (peek() === "|") {
      next();
      members.push(postfix());
    }
    if (members.length === 1) return members[0]!;
    const literals = members.flatMap((member) => (member.kind === "literal" ? member.values : []));
    const others = members.filter((member) => member.kind !== "literal");
    const merged: Shape[] = literals.length > 0 ? [{ kind: "literal", values: literals }, ...others] : others;
    return merged.length === 1 ? merged[0]! : { kind: "union", of: merged };
  };
  const postfix = (): Shape => {
    let shape = primary();
    while (peek() === "[]") {
      next();
      shape = { kind: "array", of: shape };
    }
    return shape;
  };
  const primary = (): Shape => {
    const token = next();
    if (token === "(") {
      const inner = union();
      expect(")");
      return inner;
    }
    if (token === "{") {
      const fields: Record<string, Field> = {};
      while (peek() !== "}") {
        const name = next();
        const optional = peek() === "?";
        if (optional) next();
        expect(":");
        fields[name] = { required: !optional, shape: union() };
        if (peek() === ";") next();
      }
      expect("}");
      return { kind: "object", fields };
    }
    if (token.startsWith('"')) return { kind: "literal", values: [JSON.parse(token) as string] };
    if (/^-?\d/.test(token)) return { kind: "literal", values: [Number(token)] };
    if (token === "true" || token === "false") return { kind: "literal", values: [token === "true"] };
    if (token === "any" || token === "string" || token === "number" || token === "boolean") return { kind: token };
    return { kind: "ref", name: token };
  };

  const shape = union();
  if (position !== tokens.length) throw new Error(`unexpected ${tokens[position]} in type text: ${text}`);
  return shape;
}
