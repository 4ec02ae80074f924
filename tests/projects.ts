import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { Plugin } from "vitest/config";

/**
 * Which project runs a unit test (`tests/unit/**`): "worker", inside workerd, or "unit", in Node.
 *
 * The rule: a unit test runs in workerd when it, or any file of ours it imports (tests/ and src/, followed
 * transitively), imports the Workers runtime: a `cloudflare:` or `workerd:` module (`env`, `exports`,
 * `runInDurableObject`, a Durable Object class, ...) or a package built on one (`@cloudflare/containers`). Type-only
 * imports do not count (they are gone at run time). Every other unit test is plain logic and runs in Node.
 *
 * So a new test lands in the right project by what it imports; nothing is listed by hand. A test that needs only a
 * runtime global (`HTMLRewriter`, `scheduler`) imports what it uses of the runtime from `cloudflare:workers` like the
 * others; in Node such globals throw and say so (tests/unit/node-setup.ts).
 */
export const RUNTIME_IMPORT = /^(cloudflare|workerd):|^@cloudflare\/containers(\/|$)/;

/** Static imports and re-exports (not `import type` / `export type`), side-effect imports, and `import("…")`. */
const IMPORTS =
  /(?:^|[;{}\s])(?:import|export)\s+(type\s+)?(?:[\w*{][^'"]*?\s*from\s*)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The module specifiers a file's code imports at run time, in order. */
export function runtimeImports(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(IMPORTS)) {
    if (match[1] !== undefined) continue;
    const specifier = match[2] ?? match[3];
    if (specifier !== undefined) found.push(specifier);
  }
  return found;
}

function resolveLocal(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  return [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find(
    (path) => /\.(ts|tsx|js|mjs)$/.test(path) && existsSync(path),
  );
}

/**
 * The chain of imports from `file` to the first runtime import it reaches (`[file, …, "cloudflare:test"]`), or
 * undefined when it reaches none. Only our own files (relative imports) are followed; packages other than the
 * runtime's are plain JavaScript.
 */
export function runtimeChain(
  file: string,
  read: (path: string) => string = (path) => readFileSync(path, "utf8"),
): string[] | undefined {
  const seen = new Set<string>([file]);
  const cameFrom = new Map<string, string>();
  const queue = [file];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const specifier of runtimeImports(read(next))) {
      if (RUNTIME_IMPORT.test(specifier)) {
        const chain = [specifier, next];
        for (let at = cameFrom.get(next); at !== undefined; at = cameFrom.get(at)) chain.push(at);
        return chain.reverse();
      }
      if (!specifier.startsWith(".")) continue;
      const path = resolveLocal(next, specifier);
      if (path === undefined || seen.has(path)) continue;
      seen.add(path);
      cameFrom.set(path, next);
      queue.push(path);
    }
  }
  return undefined;
}

function testFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".test.ts"))
    .map((name) => join(directory, name))
    .sort();
}

/** The unit tests (paths relative to `root`, as vitest's `include` takes them) that need workerd by the rule above. */
export function workerdUnitTests(root: string): string[] {
  return testFiles(join(root, "tests/unit"))
    .filter((file) => runtimeChain(file) !== undefined)
    .map((file) => relative(root, file));
}

/**
 * For the Node project of unit tests: an import of the runtime that the rule above did not see (and so gave the test
 * to Node) fails the test's loading, saying why, instead of as an unknown URL scheme.
 */
export function runtimeImportsRefused(): Plugin {
  return {
    name: "runtime-imports-refused",
    enforce: "pre",
    resolveId(id, importer) {
      if (!RUNTIME_IMPORT.test(id)) return null;
      throw new Error(
        `${importer ?? "a unit test"} imports ${id}, which only workerd has, in the "unit" project (Node): ` +
          "tests/projects.ts's rule did not see that import, so it did not give the test to the worker project.",
      );
    },
  };
}
