import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPTS = join(import.meta.dirname, "..", "..", "scripts", "lint");
const made: string[] = [];

/** A checkout with these files under it, for a checker to read. */
function checkout(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "lint-check-"));
  made.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function run(script: string, argument: string): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [join(SCRIPTS, script), argument], { encoding: "utf8" });
  return { status: result.status, output: result.stdout + result.stderr };
}

/** A function whose body spans `lines` lines, braces included. */
function functionOf(name: string, lines: number): string {
  const body = Array.from({ length: lines - 2 }, (_, index) => `  const v${index} = ${index};`);
  return [`export function ${name}(): void {`, ...body, "}", ""].join("\n");
}

afterEach(() => {
  for (const root of made.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("the function-length checker", () => {
  it("passes a body of 100 lines and fails one of 101, naming it", () => {
    expect(run("function-length.mjs", checkout({ "src/a.ts": functionOf("fits", 100) })).status).toBe(0);
    const failed = run("function-length.mjs", checkout({ "src/a.ts": functionOf("tooLong", 101) }));
    expect(failed.status).toBe(1);
    expect(failed.output).toContain("src/a.ts:1 tooLong: 101 lines (at most 100)");
  });

  it("counts a nested function's lines in its parent", () => {
    const inner = functionOf("inner", 60).replace("export ", "");
    const outer = `export function outer(): void {\n${inner}${inner.replace("inner", "again")}}\n`;
    const failed = run("function-length.mjs", checkout({ "src/a.ts": outer }));
    expect(failed.status).toBe(1);
    expect(failed.output).toContain("outer: 122 lines");
  });
});

describe("the env checker", () => {
  it("fails a module below the entry points that reads ctx.env or imports env.ts, and lets an object read it", () => {
    const root = checkout({
      "src/env.ts": "export interface Env { A: string }\n",
      "src/durable/object.ts":
        'import type { Env } from "../env.ts";\nexport const a = (x: { env: Env }) => x.env.A;\n',
      "src/turn/turn.ts": 'import type { Env } from "../env.ts";\nexport const b = (ctx: { env: Env }) => ctx.env.A;\n',
    });
    const failed = run("env-reach.mjs", root);
    expect(failed.status).toBe(1);
    expect(failed.output).toContain("src/turn/turn.ts:1 imports ../env.ts");
    expect(failed.output).toContain("src/turn/turn.ts:2 reads ctx.env");
    expect(failed.output).not.toContain("src/durable/object.ts");
  });
});

describe("the folder-loop checker", () => {
  const modules = (edges: [string, string][]) => ({
    modules: edges.map(([source, resolved]) => ({ source, dependencies: [{ resolved }] })),
  });

  it("fails on two folders that import each other through different files, naming an import each way", () => {
    const root = checkout({
      "loop.json": JSON.stringify(
        modules([
          ["src/store/inbox.ts", "src/helpers/job.ts"],
          ["src/helpers/budget.ts", "src/store/meta.ts"],
        ]),
      ),
    });
    const failed = run("folder-cycles.mjs", join(root, "loop.json"));
    expect(failed.status).toBe(1);
    expect(failed.output).toContain("folders in a loop: helpers/ ↔ store/");
    expect(failed.output).toContain("store/ → helpers/  (src/store/inbox.ts → src/helpers/job.ts)");
  });

  it("passes folders that go one way", () => {
    const root = checkout({
      "ok.json": JSON.stringify(
        modules([
          ["src/turn/a.ts", "src/store/b.ts"],
          ["src/store/b.ts", "src/lib/c.ts"],
        ]),
      ),
    });
    expect(run("folder-cycles.mjs", join(root, "ok.json")).status).toBe(0);
  });
});
