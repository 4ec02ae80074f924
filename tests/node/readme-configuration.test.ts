import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { settingsTables, unpadded, withTables } from "../../scripts/settings-docs/settings-table.ts";
import { isSettingName, SETTINGS_SCHEMA } from "../../src/config/settings-schema.ts";

/** The README's configuration tables, wrangler.toml's [vars] and .dev.vars.example's secrets, against the schema. */
describe("configuration", () => {
  const readme = readFileSync("README.md", "utf8");
  const wrangler = readFileSync("wrangler.toml", "utf8");
  const names = (text: string) => [...text.matchAll(/^([A-Z][A-Z0-9_]*)\s*=/gm)].map((match) => match[1] ?? "");
  const varsSection = wrangler.slice(wrangler.indexOf("[vars]"), wrangler.indexOf("\n[", wrangler.indexOf("[vars]")));
  const vars = names(varsSection);
  const secrets = names(readFileSync(".dev.vars.example", "utf8"));

  it("the README's tables are the ones the schema makes (npm run docs:settings)", () => {
    expect(unpadded(readme)).toBe(unpadded(withTables(readme, settingsTables())));
  });

  it("wrangler.toml declares at most 12 [vars], each a knob of the schema that is not a secret", () => {
    expect(vars.length).toBeGreaterThan(0);
    expect(vars.length).toBeLessThanOrEqual(12);
    for (const name of vars) {
      expect(isSettingName(name), name).toBe(true);
      if (isSettingName(name)) expect(SETTINGS_SCHEMA[name].kind, name).not.toBe("secret");
    }
  });

  it(".dev.vars.example lists the schema's secrets, and only knobs", () => {
    for (const name of secrets) expect(isSettingName(name), name).toBe(true);
    const schemaSecrets = Object.entries(SETTINGS_SCHEMA)
      .filter(([, knob]) => knob.kind === "secret")
      .map(([name]) => name);
    expect(schemaSecrets.filter((name) => !secrets.includes(name))).toEqual([]);
  });

  it("wrangler.toml has no placeholder ids (wrangler deploy provisions D1, KV and R2 without them)", () => {
    expect(wrangler).not.toMatch(/^\s*(database_)?id\s*=/m);
    // Only the preview ids, which local dev names its files by (as earlier releases did) and deploys never read.
    expect(wrangler.replace(/^preview_(database_)?id = .*$/gm, "")).not.toMatch(/0{8}/);
  });
});
