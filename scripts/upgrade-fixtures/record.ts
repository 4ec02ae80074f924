/**
 * Records an upgrade fixture: `npx node scripts/upgrade-fixtures/record.ts <commit> <release-name>` runs that commit
 * (in a temporary git worktree) under `wrangler dev --local` against the fakes, fills its storage through the webhook
 * and the admin API (scenario.ts), stops it, and saves the storage with a manifest and a README in
 * tests/fixtures/upgrade/<release-name>/, which tests/node/upgrade.test.ts starts the current code on.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBot } from "../../bench/bot.ts";
import { startFakes } from "../../tests/fakes/server.ts";
import { BotClient } from "./bot-client.ts";
import { temporaryCheckout } from "./checkout.ts";
import { FIXTURE_VARS } from "./fixture-bot.ts";
import { fixtureReadme } from "./fixture-readme.ts";
import { type Manifest, manifestSchema } from "./manifest.ts";
import { saveState } from "./save-state.ts";
import { fillStorage } from "./scenario.ts";

const [commitArg, release] = process.argv.slice(2);
if (!commitArg || !release || !/^[a-z0-9][a-z0-9.-]*$/.test(release)) {
  console.error("usage: npx node scripts/upgrade-fixtures/record.ts <commit> <release-name, e.g. stop-35-d67a4bf>");
  process.exit(2);
}
const commit = execFileSync("git", ["rev-parse", "--verify", `${commitArg}^{commit}`], { encoding: "utf8" }).trim();
const subject = execFileSync("git", ["log", "-1", "--format=%s", commit], { encoding: "utf8" }).trim();
const target = join("tests/fixtures/upgrade", release);

const checkout = temporaryCheckout(commit);
const state = mkdtempSync(join(tmpdir(), "upgrade-state-"));
const fakes = await startFakes();
try {
  const log = join(tmpdir(), `upgrade-fixture-${release}.log`);
  console.log(`[record] ${commit.slice(0, 7)} in ${checkout.dir}; its Worker's log: ${log}`);
  const bot = await startBot(fakes.url, { checkout: checkout.dir, state, vars: FIXTURE_VARS, logFile: log });
  const client = new BotClient(bot, fakes, 1);
  let recorded: Awaited<ReturnType<typeof fillStorage>>;
  try {
    recorded = await fillStorage(client);
  } finally {
    await bot.stop();
  }
  const manifest: Manifest = manifestSchema.parse({
    release,
    commit,
    recordedAt: new Date().toISOString(),
    vars: FIXTURE_VARS,
    lastUpdateId: client.lastUpdateId,
    ...recorded,
  });
  rmSync(target, { recursive: true, force: true });
  const files = saveState(state, join(target, "state"));
  writeFileSync(join(target, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(target, "README.md"), fixtureReadme(manifest, files, subject));
  // As `npm run lint` wants them.
  execFileSync("npx", ["biome", "format", "--write", join(target, "manifest.json"), join(target, "README.md")]);
  const kib = files.reduce((sum, file) => sum + file.bytes, 0) / 1024;
  console.log(`[record] ${target}: ${files.length} files, ${kib.toFixed(0)} KiB`);
} finally {
  await fakes.close();
  rmSync(state, { recursive: true, force: true });
  checkout.remove();
}
