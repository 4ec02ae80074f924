// @ts-check
/**
 * `npm run lint:env`: fails when a module of src/ outside the entry points reads the Worker's `env`.
 *
 * The entry points build narrow ports from `env` and pass them down (src/durable/bindings.ts has most builders);
 * everything else takes what it uses. A module "reads env" when it imports src/env.ts (the `Env` type, or a helper
 * that takes it) or accesses a property called `env` (`ctx.env`, `c.env`, `this.env`). Checked with TypeScript's
 * parser, so comments and strings do not count.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

const ROOT = process.argv[2] ?? join(import.meta.dirname, "..", "..");

/** Where `env` may be read: the Worker's entry, the routes and console, the objects (and their port builders and
 * the container's outbound handlers, in durable/), the type itself, and the settings reader. */
const ALLOWED = [
  /^src\/worker\.ts$/,
  /^src\/env\.ts$/,
  /^src\/http\//,
  /^src\/console\//,
  /^src\/durable\//,
  /^src\/config\/loaded-settings\.ts$/,
];

/** @param {string} dir @returns {string[]} */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/**
 * Where one file reads env: each import of src/env.ts and each `.env` access, with its line.
 * @param {string} path absolute @param {string} text @returns {{ line: number; what: string }[]}
 */
export function envReads(path, text) {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const envModule = resolve(ROOT, "src", "env.ts");
  /** @type {{ line: number; what: string }[]} */
  const found = [];
  const lineOf = (/** @type {ts.Node} */ node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const target = resolve(dirname(path), node.moduleSpecifier.text);
      if (target === envModule) found.push({ line: lineOf(node), what: `imports ${node.moduleSpecifier.text}` });
    }
    if (ts.isPropertyAccessExpression(node) && node.name.text === "env") {
      found.push({ line: lineOf(node), what: `reads ${node.getText(file)}` });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let count = 0;
  for (const path of sources(join(ROOT, "src"))) {
    const name = relative(ROOT, path);
    if (ALLOWED.some((pattern) => pattern.test(name))) continue;
    for (const read of envReads(path, readFileSync(path, "utf8"))) {
      console.log(`${name}:${read.line} ${read.what}`);
      count++;
    }
  }
  if (count > 0) {
    console.log(`${count} read(s) of env outside the entry points: take a port built at the entry point instead.`);
    process.exit(1);
  }
  console.log("✔ env is read only at the entry points and by the settings reader");
}
