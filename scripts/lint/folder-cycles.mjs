// @ts-check
/**
 * `npm run lint:layers` (second half): fails when the folders of src/ import each other in a loop.
 *
 * dependency-cruiser's `no-cycles` rule sees loops between files; two folders can still lean on each other through
 * different files (store/ importing a helpers/ type while helpers/ imports store/), which the layer rules do not see
 * when both folders sit in the same layer. This reads dependency-cruiser's JSON output (`--output-type json`, on
 * stdin or from the file named on the command line), folds each module into its folder under src/ (a file directly
 * in src/ is its own node), and fails on every strongly connected group of folders, naming one import per edge.
 */
import { readFileSync } from "node:fs";

/** @typedef {{ source: string; dependencies: { resolved: string }[] }} CruisedModule */

/** @param {string} path @returns {string | undefined} */
function folderOf(path) {
  const match = /^src\/([^/]+)(\/)?/.exec(path);
  if (!match) return undefined;
  return match[2] ? `${match[1]}/` : match[1];
}

/**
 * The folder graph, with one example import for each edge.
 * @param {CruisedModule[]} modules @returns {Map<string, Map<string, string>>}
 */
export function folderGraph(modules) {
  /** @type {Map<string, Map<string, string>>} */
  const graph = new Map();
  for (const module of modules) {
    const from = folderOf(module.source);
    if (from === undefined) continue;
    if (!graph.has(from)) graph.set(from, new Map());
    for (const dependency of module.dependencies) {
      const to = folderOf(dependency.resolved);
      if (to === undefined || to === from) continue;
      const edges = /** @type {Map<string, string>} */ (graph.get(from));
      if (!edges.has(to)) edges.set(to, `${module.source} → ${dependency.resolved}`);
    }
  }
  return graph;
}

/**
 * The groups of folders that reach each other (Tarjan's strongly connected components), each of two or more.
 * @param {Map<string, Map<string, string>>} graph @returns {string[][]}
 */
export function folderLoops(graph) {
  let next = 0;
  /** @type {Map<string, number>} */ const index = new Map();
  /** @type {Map<string, number>} */ const low = new Map();
  /** @type {string[]} */ const stack = [];
  const onStack = new Set();
  /** @type {string[][]} */ const groups = [];
  /** @param {string} node */
  const connect = (node) => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node)?.keys() ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(/** @type {number} */ (low.get(node)), /** @type {number} */ (low.get(to))));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(/** @type {number} */ (low.get(node)), /** @type {number} */ (index.get(to))));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    /** @type {string[]} */ const group = [];
    let member;
    do {
      member = /** @type {string} */ (stack.pop());
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return groups;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const input = readFileSync(process.argv[2] ?? 0, "utf8");
  const graph = folderGraph(JSON.parse(input).modules);
  const loops = folderLoops(graph);
  for (const group of loops) {
    console.log(`✘ folders in a loop: ${group.join(" ↔ ")}`);
    for (const from of group) {
      for (const [to, example] of graph.get(from) ?? []) {
        if (group.includes(to)) console.log(`    ${from} → ${to}  (${example})`);
      }
    }
  }
  if (loops.length > 0) process.exit(1);
  console.log(`✔ no loop between the folders of src/ (${graph.size} folders)`);
}
