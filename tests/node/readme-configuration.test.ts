import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/** Every variable a deployment can set (wrangler.toml's [vars], .dev.vars.example's secrets) has a row in the README. */
describe("the README's configuration table", () => {
  const readme = readFileSync("README.md", "utf8");
  const rows = new Set([...readme.matchAll(/^\| `([A-Z][A-Z0-9_]*)`/gm)].map((match) => match[1]));
  const vars = (text: string) => [...text.matchAll(/^([A-Z][A-Z0-9_]*)\s*=/gm)].map((match) => match[1]);
  const wrangler = readFileSync("wrangler.toml", "utf8");
  const declared = new Set([
    ...vars(wrangler.slice(wrangler.indexOf("[vars]"))),
    ...vars(readFileSync(".dev.vars.example", "utf8")),
  ]);

  it("has a row for each variable wrangler.toml and .dev.vars.example declare", () => {
    expect(declared.size).toBeGreaterThan(50);
    expect([...declared].filter((name) => !rows.has(name))).toEqual([]);
  });
});
