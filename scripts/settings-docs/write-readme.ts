/** `npm run docs:settings`: rewrites the README's configuration tables from the settings schema. */
import { readFileSync, writeFileSync } from "node:fs";
import { settingsTables, withTables } from "./settings-table.ts";

const readme = readFileSync("README.md", "utf8");
const next = withTables(readme, settingsTables());
if (next === readme) console.log("README.md's configuration tables are up to date.");
else {
  writeFileSync("README.md", next);
  console.log("README.md's configuration tables rewritten from src/config/knobs/.");
}
