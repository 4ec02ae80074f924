// @ts-check
/**
 * `npm run lint:functions`: fails when a function in src/ is longer than MAX_LINES.
 *
 * How it measures: every function-like node with a body (function declarations and expressions, arrow functions,
 * methods, constructors, accessors) is measured from the line of its body's first token (`{`, or an arrow's
 * expression) to the line of its body's last, both included. Blank lines and comments inside the body count, and so
 * do the lines of functions nested in it: a function is as long as what one reads to read it. The signature does not
 * count (a long parameter list is not a long function).
 *
 * Plain JavaScript with type checks in comments, so that it runs on every Node the project supports (Node 20 does not
 * run TypeScript files); it reads the sources with the TypeScript compiler's parser.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

const MAX_LINES = 100;
/** The checkout to measure: this one, or the one named on the command line (to compare with another). */
const ROOT = process.argv[2] ?? join(import.meta.dirname, "..", "..");

/** @param {string} dir @returns {string[]} */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** @param {ts.Node} node @returns {string} */
function nameOf(node) {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isAccessor(node)) && node.name) {
    return node.name.getText();
  }
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText();
  }
  return "(anonymous)";
}

/**
 * The functions of one file longer than `max` lines.
 * @param {string} path @param {string} text @param {number} max
 * @returns {{ path: string; line: number; name: string; lines: number }[]}
 */
export function longFunctions(path, text, max = MAX_LINES) {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  /** @type {{ path: string; line: number; name: string; lines: number }[]} */
  const found = [];
  /** @param {ts.Node} node */
  const visit = (node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const body = /** @type {ts.Node} */ (node.body);
      const first = file.getLineAndCharacterOfPosition(body.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(body.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) found.push({ path, line: first + 1, name: nameOf(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const long = sources(join(ROOT, "src")).flatMap((path) =>
    longFunctions(relative(ROOT, path), readFileSync(path, "utf8")),
  );
  for (const f of long) console.log(`${f.path}:${f.line} ${f.name}: ${f.lines} lines (at most ${MAX_LINES})`);
  if (long.length > 0) {
    console.log(`${long.length} function(s) in src/ over ${MAX_LINES} lines: split them.`);
    process.exit(1);
  }
  console.log(`✔ no function in src/ over ${MAX_LINES} lines`);
}
