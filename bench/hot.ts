/**
 * `node bench/hot.ts <file.cpuprofile> [count] [--bundle worker.js]`: the functions with the most self time in a CPU
 * profile the benchmark wrote (bench/results/*.cpuprofile), with the time spent in each and what it called; with
 * the unminified bundle the profile was taken of (bench/profile.ts keeps it), each with its source module.
 */
import { readFileSync } from "node:fs";
import type { CpuProfile } from "./cpu.ts";

export interface HotFunction {
  name: string;
  /** Samples in the function itself, and in it or anything it called, in milliseconds. */
  selfMs: number;
  totalMs: number;
  share: number;
}

/** Functions by self time, their total (inclusive) time beside it; idle and program time are left out of the share. */
export function hotFunctions(profile: CpuProfile, count = 30): HotFunction[] {
  const self = new Map<number, number>();
  for (const [index, node] of profile.samples.entries()) {
    self.set(node, (self.get(node) ?? 0) + (profile.timeDeltas[index] ?? 0));
  }
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const keyOf = new Map(
    profile.nodes.map((node) => {
      const frame = node.callFrame;
      return [node.id, `${frame.functionName || "(anonymous)"} ${frame.url.replace(/^.*\//, "")}:${frame.lineNumber}`];
    }),
  );
  const selfBy = new Map<string, number>();
  const totalBy = new Map<string, number>();
  let busy = 0;
  for (const node of profile.nodes) {
    const micros = self.get(node.id) ?? 0;
    const key = keyOf.get(node.id)!;
    selfBy.set(key, (selfBy.get(key) ?? 0) + micros);
    if (micros === 0) continue;
    if (!["(idle)", "(program)"].includes(node.callFrame.functionName)) busy += micros;
    // Each function on the sample's stack once (recursion counted once).
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const name = keyOf.get(id)!;
      if (seen.has(name)) continue;
      seen.add(name);
      totalBy.set(name, (totalBy.get(name) ?? 0) + micros);
    }
  }
  return [...selfBy]
    .filter(([name]) => !name.startsWith("(idle)") && !name.startsWith("(program)") && !name.startsWith("(root)"))
    .sort((left, right) => right[1] - left[1])
    .slice(0, count)
    .map(([name, micros]) => ({
      name,
      selfMs: micros / 1000,
      totalMs: (totalBy.get(name) ?? 0) / 1000,
      share: busy === 0 ? 0 : micros / busy,
    }));
}

/** The module a line of an unminified esbuild bundle belongs to: the `// path` comment esbuild puts before each. */
function modulesOf(bundle: string): (line: number) => string | undefined {
  const starts: { line: number; module: string }[] = [];
  for (const [index, text] of bundle.split("\n").entries()) {
    const match = /^\/\/ ((?:src|node_modules|bench)\/\S+|\S+\.(?:ts|js|mjs|cjs))$/.exec(text);
    if (match) starts.push({ line: index, module: match[1]! });
  }
  return (line) => starts.findLast((start) => start.line <= line)?.module;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const bundleAt = args.indexOf("--bundle");
  const bundle = bundleAt >= 0 ? args[bundleAt + 1] : undefined;
  const [file, count] = args.filter((arg, index) => !arg.startsWith("--") && (bundleAt < 0 || index !== bundleAt + 1));
  if (!file) throw new Error("usage: node bench/hot.ts <file.cpuprofile> [count] [--bundle worker.js]");
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const moduleOf = bundle ? modulesOf(readFileSync(bundle, "utf8")) : undefined;
  for (const hot of hotFunctions(profile, Number(count ?? 30))) {
    const line = Number(/:(\d+)$/.exec(hot.name)?.[1]);
    const module = moduleOf && hot.name.includes("worker.js:") ? ` (${moduleOf(line) ?? "?"})` : "";
    console.log(
      `${(hot.share * 100).toFixed(1).padStart(5)}%  self ${hot.selfMs.toFixed(0).padStart(6)} ms  total ${hot.totalMs.toFixed(0).padStart(6)} ms  ${hot.name}${module}`,
    );
  }
}
