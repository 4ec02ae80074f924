/** `npm run docs:settings`: rewrites the README's configuration tables from the settings schema. */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { settingsTables, unpadded, withTables } from "./settings-table.ts";

const readme = readFileSync("README.md", "utf8");
const next = withTables(readme, settingsTables());
if (unpadded(next) === unpadded(readme)) console.log("README.md's configuration tables are up to date.");
else {
  writeFileSync("README.md", next);
  // The house style pads the tables' columns.
  spawnSync("npx", ["biome", "format", "--write", "README.md"], { stdio: "ignore" });
  console.log("README.md's configuration tables rewritten from src/config/knobs/.");
}
