/**
 * Writes ./methods.json: every Bot API method, its fields and the shapes of the objects they take, read from
 * `@grammyjs/types` (`methods.d.ts`, which types the Bot API version grammY supports) with the TypeScript compiler
 * API. The fakes answer a method that is not in it as Telegram does (404) and record any method or field that is not
 * in it as a violation. Run `node scripts/bot-api/generate-methods.ts` after updating grammY; a test fails while the
 * checked-in file is out of date.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import ts from "typescript";
import type { Field, MethodTable, MethodTableJson, Shape } from "./method-table.ts";
import { fieldKey, shapeText } from "./type-text.ts";

const require = createRequire(import.meta.url);
export const METHODS_JSON = new URL("./methods.json", import.meta.url);

export function readMethodTable(): MethodTable {
  const typesDirectory = dirname(require.resolve("@grammyjs/types/package.json"));
  const { version } = JSON.parse(readFileSync(join(typesDirectory, "package.json"), "utf8")) as { version: string };
  const path = join(typesDirectory, "methods.d.ts");
  // No default library: only the names of its types (ReadonlyArray, Exclude) matter here.
  const program = ts.createProgram([path], { noEmit: true, noLib: true, types: [], skipLibCheck: true, strict: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(path);
  const apiMethods = source?.statements.find(
    (statement): statement is ts.TypeAliasDeclaration =>
      ts.isTypeAliasDeclaration(statement) && statement.name.text === "ApiMethods",
  );
  if (!apiMethods || !ts.isTypeLiteralNode(apiMethods.type)) throw new Error(`no ApiMethods type literal in ${path}`);

  const shapes: Record<string, Shape> = {};
  const reader = new ShapeReader(checker, shapes);
  const methods: MethodTable["methods"] = {};
  for (const member of apiMethods.type.members) {
    if (!ts.isMethodSignature(member) || !ts.isIdentifier(member.name)) continue;
    const parameter = member.parameters[0]?.type;
    if (parameter && !ts.isTypeLiteralNode(parameter)) {
      throw new Error(`${member.name.text}: its parameter is not a type literal`);
    }
    methods[member.name.text] = parameter ? reader.fieldsOf(parameter.members) : {};
  }
  const sortedShapes = Object.fromEntries(Object.entries(shapes).sort(([a], [b]) => a.localeCompare(b)));
  return { source: `@grammyjs/types ${version}`, methods, shapes: sortedShapes };
}

/** Turns type nodes into shapes; named interfaces and aliases become `ref`s, read once into `shapes`. */
class ShapeReader {
  private readonly checker: ts.TypeChecker;
  private readonly shapes: Record<string, Shape>;

  constructor(checker: ts.TypeChecker, shapes: Record<string, Shape>) {
    this.checker = checker;
    this.shapes = shapes;
  }

  fieldsOf(members: ts.NodeArray<ts.TypeElement>): Record<string, Field> {
    const fields: Record<string, Field> = {};
    for (const member of members) {
      if (!ts.isPropertySignature(member) || !member.name || !ts.isIdentifier(member.name)) continue;
      fields[member.name.text] = {
        required: member.questionToken === undefined,
        shape: member.type ? this.shapeOf(member.type) : { kind: "any" },
      };
    }
    return fields;
  }

  shapeOf(node: ts.TypeNode): Shape {
    if (ts.isParenthesizedTypeNode(node)) return this.shapeOf(node.type);
    if (ts.isArrayTypeNode(node)) return { kind: "array", of: this.shapeOf(node.elementType) };
    if (ts.isTypeLiteralNode(node)) return { kind: "object", fields: this.fieldsOf(node.members) };
    if (ts.isUnionTypeNode(node)) return union(node.types.map((type) => this.shapeOf(type)));
    if (ts.isLiteralTypeNode(node)) {
      const literal = node.literal;
      if (ts.isStringLiteral(literal)) return { kind: "literal", values: [literal.text] };
      if (ts.isNumericLiteral(literal)) return { kind: "literal", values: [Number(literal.text)] };
      if (literal.kind === ts.SyntaxKind.TrueKeyword) return { kind: "literal", values: [true] };
      if (literal.kind === ts.SyntaxKind.FalseKeyword) return { kind: "literal", values: [false] };
      return { kind: "any" };
    }
    switch (node.kind) {
      case ts.SyntaxKind.StringKeyword:
        return { kind: "string" };
      case ts.SyntaxKind.NumberKeyword:
        return { kind: "number" };
      case ts.SyntaxKind.BooleanKeyword:
        return { kind: "boolean" };
    }
    if (ts.isTypeReferenceNode(node)) return this.referenceOf(node);
    return { kind: "any" };
  }

  private referenceOf(node: ts.TypeReferenceNode): Shape {
    const name = node.typeName.getText();
    if ((name === "ReadonlyArray" || name === "Array") && node.typeArguments?.[0]) {
      return { kind: "array", of: this.shapeOf(node.typeArguments[0]) };
    }
    let symbol = this.checker.getSymbolAtLocation(node.typeName);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = this.checker.getAliasedSymbol(symbol);
    // A name can be both a namespace and a type (InlineKeyboardButton): the type is wanted.
    const declaration =
      symbol?.declarations?.find(
        (candidate) =>
          ts.isInterfaceDeclaration(candidate) ||
          ts.isTypeAliasDeclaration(candidate) ||
          ts.isTypeParameterDeclaration(candidate),
      ) ?? symbol?.declarations?.[0];
    // A type parameter (the file type F), a utility type (Exclude, keyof …) or anything outside the package: any value.
    if (!symbol || !declaration?.getSourceFile().fileName.includes("@grammyjs/types")) {
      return { kind: "any" };
    }
    if (ts.isTypeParameterDeclaration(declaration)) return { kind: "any" };
    const qualified = qualifiedName(this.checker, symbol);
    if (!(qualified in this.shapes)) {
      this.shapes[qualified] = { kind: "any" }; // placeholder while reading, for recursive types
      if (ts.isInterfaceDeclaration(declaration)) this.shapes[qualified] = this.interfaceShape(symbol);
      else if (ts.isTypeAliasDeclaration(declaration)) this.shapes[qualified] = this.shapeOf(declaration.type);
    }
    return { kind: "ref", name: qualified };
  }

  /** An interface's own fields and those it extends. */
  private interfaceShape(symbol: ts.Symbol): Shape {
    const fields: Record<string, Field> = {};
    for (const property of this.checker.getPropertiesOfType(this.checker.getDeclaredTypeOfSymbol(symbol))) {
      const declaration = property.declarations?.[0];
      if (!declaration || !ts.isPropertySignature(declaration)) continue;
      fields[property.name] = {
        required: declaration.questionToken === undefined,
        shape: declaration.type ? this.shapeOf(declaration.type) : { kind: "any" },
      };
    }
    return { kind: "object", fields };
  }
}

/** `InlineKeyboardButton.CallbackButton`, without the module's quoted path that the checker puts first. */
function qualifiedName(checker: ts.TypeChecker, symbol: ts.Symbol): string {
  return checker.getFullyQualifiedName(symbol).replace(/^"[^"]*"\./, "");
}

/** A union, flattened, with its literals merged into one list. */
function union(members: Shape[]): Shape {
  const flat = members.flatMap((member) => (member.kind === "union" ? member.of : [member]));
  if (flat.some((member) => member.kind === "any")) return { kind: "any" };
  const literals = flat.flatMap((member) => (member.kind === "literal" ? member.values : []));
  const others = flat.filter((member) => member.kind !== "literal");
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
