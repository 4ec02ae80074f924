import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { APIMethods } from "@gramio/types";
import ts from "typescript";
import type { Spec, SpecField, SpecMethod, SpecType } from "./spec-format.ts";

/**
 * The base of the spec: the Bot API as `@gramio/types` types it (10.3 in its 10.3.1), read from its declarations
 * with the TypeScript compiler API into the spec's format (./spec-format.ts). The package is generated from the
 * official page (https://core.telegram.org/bots/api) and keeps its structure: one interface per Telegram type
 * (`Telegram` before its name, a `[Documentation](…)` link on each), one params interface per method, and the docs'
 * enumerations as unions of literals. What it adds for gramio's own convenience is not the Bot API and is dropped:
 * `{ toJSON(): … }` beside a keyboard and `{ toString(): string }` beside a text. Its `number` is written `Integer`
 * (the package does not tell `Float` apart; the fakes check both as numbers).
 */
const require = createRequire(import.meta.url);

export const BASE_PACKAGE = "@gramio/types";
/** A method the base must have, named through the package's own types so that the typecheck sees it installed. */
const GET_ME: keyof APIMethods = "getMe";

/** The installed package's folder (its `exports` give types only, so `require.resolve` cannot name it). */
function packageDirectory(): string {
  const folder = require.resolve
    .paths(BASE_PACKAGE)
    ?.map((modules) => join(modules, BASE_PACKAGE))
    .find((candidate) => existsSync(join(candidate, "package.json")));
  if (!folder) throw new Error(`${BASE_PACKAGE} is not installed (npm install)`);
  return folder;
}

export function basePackageVersion(): string {
  return (JSON.parse(readFileSync(join(packageDirectory(), "package.json"), "utf8")) as { version: string }).version;
}

export function readBaseSpec(): Spec {
  const directory = join(packageDirectory(), "out");
  const path = join(directory, "methods.d.ts");
  // No default library: only the declarations' syntax and the names they refer to matter here.
  const program = ts.createProgram([path], { noEmit: true, noLib: true, types: [], skipLibCheck: true, strict: true });
  const reader = new BaseReader(program.getTypeChecker());
  const apiMethods = program
    .getSourceFile(path)
    ?.statements.find(
      (statement): statement is ts.InterfaceDeclaration =>
        ts.isInterfaceDeclaration(statement) && statement.name.text === "APIMethods",
    );
  if (!apiMethods) throw new Error(`no APIMethods interface in ${path}`);

  const methods: Record<string, SpecMethod> = {};
  for (const member of apiMethods.members) {
    if (!ts.isPropertySignature(member) || !member.type || !ts.isIdentifier(member.name)) continue;
    methods[member.name.text] = reader.method(member.name.text, member, member.type);
  }
  if (!methods[GET_ME]) throw new Error(`${path} has no ${GET_ME}`);
  const objects = program.getSourceFile(join(directory, "objects.d.ts"));
  if (!objects) throw new Error(`no objects.d.ts beside ${path}`);
  const types: Record<string, SpecType> = {};
  for (const statement of objects.statements) {
    const type = reader.type(statement);
    if (type) types[type.name] = type;
  }
  const index = readFileSync(join(directory, "index.d.ts"), "utf8");
  const based = /Based on Bot API v(\d+\.\d+) \((\d\d)\.(\d\d)\.(\d{4})\)/.exec(index);
  if (!based) throw new Error(`${BASE_PACKAGE} does not say which Bot API it types (index.d.ts)`);
  const [, version, day, month, year] = based;
  const monthName = new Date(Date.UTC(Number(year), Number(month) - 1, 1)).toLocaleString("en-US", {
    month: "long",
    timeZone: "UTC",
  });
  const date = `${monthName} ${Number(day)}, ${year}`;
  return {
    version: `Bot API ${version}`,
    release_date: date,
    changelog: `https://core.telegram.org/bots/api-changelog#${monthName.toLowerCase()}-${Number(day)}-${year}`,
    methods,
    types,
  };
}

interface TypeNames {
  types: string[];
  values: (string | number | boolean)[];
}

class BaseReader {
  private readonly checker: ts.TypeChecker;

  constructor(checker: ts.TypeChecker) {
    this.checker = checker;
  }

  /** `sendMessage: CallAPI<Params.SendMessageParams, Objects.TelegramMessage>` (or …WithOptionalParams, …WithoutParams). */
  method(name: string, member: ts.PropertySignature, type: ts.TypeNode): SpecMethod {
    if (!ts.isTypeReferenceNode(type) || !type.typeArguments) throw new Error(`${name}: not a CallAPI type`);
    const withoutParams = type.typeName.getText() === "CallAPIWithoutParams";
    const params = withoutParams ? undefined : type.typeArguments[0];
    const result = type.typeArguments[withoutParams ? 0 : 1];
    let fields: SpecField[] = [];
    if (params) {
      const declaration = this.declarationOf(params);
      if (!declaration || !ts.isInterfaceDeclaration(declaration)) throw new Error(`${name}: params not an interface`);
      fields = this.fieldsOf(declaration);
    }
    return { name, href: documentation(member, name), returns: result ? this.namesOf(result).types : [], fields };
  }

  /** A Telegram type: an interface, or an alias of a union of types (its subtypes). Enumerations are inlined. */
  type(statement: ts.Statement): SpecType | undefined {
    if (ts.isInterfaceDeclaration(statement)) {
      const name = telegramName(statement.name.text);
      return { name, href: documentation(statement, name), fields: this.fieldsOf(statement) };
    }
    // TelegramInputFile = Blob: a file uploaded with the request, no object of the API.
    if (ts.isTypeAliasDeclaration(statement) && statement.name.text === "TelegramInputFile") return undefined;
    if (ts.isTypeAliasDeclaration(statement) && !this.isEnumeration(statement.type)) {
      const name = telegramName(statement.name.text);
      const members = ts.isUnionTypeNode(statement.type) ? statement.type.types : [statement.type];
      if (!members.every(ts.isTypeReferenceNode)) return undefined;
      return { name, href: documentation(statement, name), subtypes: members.flatMap((m) => this.namesOf(m).types) };
    }
    return undefined;
  }

  private fieldsOf(declaration: ts.InterfaceDeclaration): SpecField[] {
    const fields: SpecField[] = [];
    for (const member of declaration.members) {
      if (!ts.isPropertySignature(member) || !member.type || !ts.isIdentifier(member.name)) continue;
      const { types, values } = this.namesOf(member.type);
      const field: SpecField = { name: member.name.text, types, required: member.questionToken === undefined };
      if (values.length > 0) field.values = values;
      fields.push(field);
    }
    return fields;
  }

  /** A type node as Telegram's type names, and the only values it takes where it lists them. */
  private namesOf(node: ts.TypeNode): TypeNames {
    if (ts.isParenthesizedTypeNode(node)) return this.namesOf(node.type);
    if (ts.isUnionTypeNode(node)) {
      const members = node.types.map((type) => this.namesOf(type));
      const types = [...new Set(members.flatMap((member) => member.types))];
      // A plain `string` beside literals takes any string: then the literals are no list of the only values.
      const open = members.some((member) => member.types.length > 0 && member.values.length === 0);
      return { types, values: open ? [] : members.flatMap((member) => member.values) };
    }
    // gramio's conveniences ({ toJSON(): … }, { toString(): string }) are no Bot API type.
    if (ts.isTypeLiteralNode(node) && node.members.some(ts.isMethodSignature)) return { types: [], values: [] };
    if (ts.isArrayTypeNode(node)) {
      const element = this.namesOf(node.elementType);
      return { types: [`Array of ${element.types.join(" | ")}`], values: element.values };
    }
    if (ts.isLiteralTypeNode(node)) {
      const literal = node.literal;
      if (ts.isStringLiteral(literal)) return { types: ["String"], values: [literal.text] };
      if (ts.isNumericLiteral(literal)) return { types: ["Integer"], values: [Number(literal.text)] };
      if (literal.kind === ts.SyntaxKind.TrueKeyword) return { types: ["True"], values: [] };
      if (literal.kind === ts.SyntaxKind.FalseKeyword) return { types: ["Boolean"], values: [false] };
      throw new Error(`unexpected literal ${node.getText()}`);
    }
    switch (node.kind) {
      case ts.SyntaxKind.StringKeyword:
        return { types: ["String"], values: [] };
      case ts.SyntaxKind.NumberKeyword:
        return { types: ["Integer"], values: [] };
      case ts.SyntaxKind.BooleanKeyword:
        return { types: ["Boolean"], values: [] };
    }
    // allowed_updates: `Exclude<keyof TelegramUpdate, "update_id">[]`, which the docs write "Array of String".
    if (ts.isTypeOperatorNode(node) && node.operator === ts.SyntaxKind.KeyOfKeyword)
      return { types: ["String"], values: [] };
    if (ts.isTypeReferenceNode(node) && node.typeName.getText() === "Exclude" && node.typeArguments?.[0]) {
      return this.namesOf(node.typeArguments[0]);
    }
    if (ts.isTypeReferenceNode(node)) {
      const declaration = this.declarationOf(node);
      const name = declaration && ts.isTypeAliasDeclaration(declaration) ? declaration.name.text : undefined;
      if (name === "TelegramInputFile") return { types: ["InputFile"], values: [] };
      if (declaration && ts.isTypeAliasDeclaration(declaration) && this.isEnumeration(declaration.type)) {
        return this.namesOf(declaration.type);
      }
      if (declaration && (ts.isInterfaceDeclaration(declaration) || ts.isTypeAliasDeclaration(declaration))) {
        return { types: [telegramName(declaration.name.text)], values: [] };
      }
    }
    throw new Error(`cannot read the type ${node.getText()} (${node.getSourceFile().fileName})`);
  }

  /** A union of literals (or one literal): one of the docs' enumerations. */
  private isEnumeration(node: ts.TypeNode): boolean {
    const members = ts.isUnionTypeNode(node) ? node.types : [node];
    return members.every((member) => ts.isLiteralTypeNode(member));
  }

  private declarationOf(node: ts.TypeNode): ts.Declaration | undefined {
    if (!ts.isTypeReferenceNode(node)) return undefined;
    let symbol = this.checker.getSymbolAtLocation(node.typeName);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = this.checker.getAliasedSymbol(symbol);
    return symbol?.declarations?.[0];
  }
}

/** `TelegramInlineKeyboardButton` → `InlineKeyboardButton`. */
function telegramName(name: string): string {
  return name.replace(/^Telegram/, "");
}

/** The `[Documentation](https://core.telegram.org/bots/api/#sendmessage)` link of a declaration, as the docs write it. */
function documentation(node: ts.Node, name: string): string {
  const comments = ts.getJSDocCommentsAndTags(node).map((comment) => comment.getText());
  const link = comments.join("\n").match(/\[Documentation\]\((https:\/\/core\.telegram\.org\/bots\/api)\/?(#[\w-]+)\)/);
  return link ? `${link[1]}${link[2]}` : `https://core.telegram.org/bots/api#${name.toLowerCase()}`;
}
