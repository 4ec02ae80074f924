import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runtimeChain, runtimeImports, runtimeImportsRefused, workerdUnitTests } from "../projects.ts";

const ROOT = join(import.meta.dirname, "../..");

describe("runtimeImports", () => {
  it("finds what a file imports at run time, and not its type-only imports", () => {
    const source = [
      'import { env } from "cloudflare:workers";',
      'import type { D1Migration } from "cloudflare:test";',
      "import {",
      "  a,",
      "  type B,",
      '} from "./a.ts";',
      'import * as z from "zod";',
      'import "./side-effect.ts";',
      'export { c } from "./c.ts";',
      'export * from "./d.ts";',
      'export type { E } from "./e.ts";',
      'const later = await import("./later.ts");',
    ].join("\n");
    expect(runtimeImports(source)).toEqual([
      "cloudflare:workers",
      "./a.ts",
      "zod",
      "./side-effect.ts",
      "./c.ts",
      "./d.ts",
      "./later.ts",
    ]);
  });
});

describe("which project runs a unit test", () => {
  const temporary = mkdtempSync(join(tmpdir(), "test-projects-"));
  afterAll(() => rmSync(temporary, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(temporary, path)), { recursive: true });
    writeFileSync(join(temporary, path), text);
  };

  it("gives workerd the tests that import the runtime, directly or through our files, and Node the rest", () => {
    write("src/durable/object.ts", 'import { DurableObject } from "cloudflare:workers";\nexport class O {}\n');
    write("src/durable/containers.ts", 'import { getContainer } from "@cloudflare/containers";\n');
    write("src/plain.ts", 'import type { O } from "./durable/object.ts";\nexport const plain = 1;\n');
    write("tests/helper.ts", 'export { O } from "../src/durable/object.ts";\n');
    write("tests/unit/a/direct.test.ts", 'import { env } from "cloudflare:test";\n');
    write("tests/unit/a/through-helper.test.ts", 'import { O } from "../../helper.ts";\n');
    write("tests/unit/b/through-package.test.ts", 'import "../../../src/durable/containers.ts";\n');
    write("tests/unit/b/plain.test.ts", 'import { plain } from "../../../src/plain.ts";\n');
    write("tests/unit/b/helper.ts", 'import { env } from "cloudflare:workers";\n');

    expect(workerdUnitTests(temporary)).toEqual([
      "tests/unit/a/direct.test.ts",
      "tests/unit/a/through-helper.test.ts",
      "tests/unit/b/through-package.test.ts",
    ]);
    expect(runtimeChain(join(temporary, "tests/unit/a/through-helper.test.ts"))).toEqual([
      join(temporary, "tests/unit/a/through-helper.test.ts"),
      join(temporary, "tests/helper.ts"),
      join(temporary, "src/durable/object.ts"),
      "cloudflare:workers",
    ]);
  });

  it("keeps this repository's storage tests in workerd and its plain logic in Node", () => {
    const workerd = workerdUnitTests(ROOT);
    expect(workerd).toContain("tests/unit/store/history-store.test.ts");
    expect(workerd).toContain("tests/unit/turn/admission.test.ts");
    expect(workerd).not.toContain("tests/unit/config/settings.test.ts");
    expect(workerd).not.toContain("tests/unit/reply/error-text.test.ts");
  });

  it("fails a Node unit test's loading with the reason when the rule missed a runtime import", () => {
    const plugin = runtimeImportsRefused();
    const resolveId = plugin.resolveId as (id: string, importer?: string) => unknown;
    expect(resolveId("zod", "/repo/tests/unit/x.test.ts")).toBeNull();
    expect(() => resolveId("cloudflare:workers", "/repo/tests/unit/x.test.ts")).toThrow(
      '/repo/tests/unit/x.test.ts imports cloudflare:workers, which only workerd has, in the "unit" project (Node)',
    );
  });
});
