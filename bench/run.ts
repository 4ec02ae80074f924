/**
 * `npm run bench [-- --peer DIR] [-- --quick] [-- --model-latency-ms 1000] [-- --runs 3] [-- --only cpu,reply] [-- --checkout DIR]
 * [-- --plan free]`: the
 * bot under `wrangler dev` on the local runtime, driven with real Telegram update JSON over HTTP, against fake
 * Telegram / OpenAI / Anthropic servers on 127.0.0.1. Prints a table, writes bench/results/<date>.json, and (full
 * runs) the table into BENCHMARKS.md. `--checkout DIR` runs another checkout's bot (its own node_modules) with this
 * harness, for an A/B against an older commit; `cost` (the counting wrapper) runs only on this checkout. `--unminified`
 * runs the bot unminified and keeps its bundle as bench/results/run-worker.js, so that
 * `node bench/hot.ts bench/results/cpu-per-message.cpuprofile 40 --bundle bench/results/run-worker.js` names functions.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { describeViolation } from "../scripts/bot-api/vocabulary.ts";
import { startFakes } from "../tests/fakes/server.ts";
import { type Bot, newestDevBundle, startBot } from "./bot.ts";
import { type CostReport, costScenario } from "./cost-scenario.ts";
import { connectProfiler } from "./cpu.ts";
import { type LimitsReport, limitsScenario } from "./limits-scenario.ts";
import { peerComparison } from "./peer.ts";
import { formatCost, formatLimits, formatStatements, formatTable, medianRun } from "./report.ts";
import { type ScenarioResult, scenarios } from "./scenarios.ts";
import { bundleSize, MAX_WORKER_GZIP_KIB } from "./size.ts";

const argv = process.argv.slice(2);
const text = (name: string) => {
  const index = argv.indexOf(`--${name}`);
  return index >= 0 ? argv[index + 1] : undefined;
};
const flag = (name: string) => argv.includes(`--${name}`);
const option = (name: string, fallback: number) => {
  const index = argv.indexOf(`--${name}`);
  return index >= 0 ? Number(argv[index + 1]) : fallback;
};
const quick = flag("quick");
const modelLatencyMs = option("model-latency-ms", 1000);
const runs = option("runs", quick ? 1 : 3);
/** `--only cpu,reply`: just those scenarios (after the cold start), for comparing two versions; BENCHMARKS.md is left alone. */
const only = text("only")?.split(",");
const checkout = text("checkout");
const unminified = flag("unminified");
/**
 * The timing scenarios to run (none for `--only cost`), and whether the cost and limits scenarios (the counting
 * wrapper's) run: in full runs, or when asked for.
 */
const timed = only?.filter((name) => name !== "cost" && name !== "limits");
const withTimed = timed === undefined || timed.length > 0;
const withCost = checkout === undefined && (only ? only.includes("cost") : !quick);
const withLimits = checkout === undefined && (only ? only.includes("limits") : !quick);

/** `--peer DIR`: this bot beside another bot's Worker (bench/peer.ts), and nothing else. */
const peer = text("peer");
if (peer !== undefined) {
  const peerFakes = await startFakes({ recordRequests: false });
  try {
    const scenarios = text("scenarios")?.split(",").map(Number);
    const log = (line: string) => console.error(`  ${line}`);
    const oursOnly = flag("ours-only");
    const trace = flag("trace");
    const profile = flag("profile");
    console.log(
      await peerComparison(peerFakes, {
        peerDirectory: peer,
        log,
        ...(scenarios ? { scenarios } : {}),
        oursOnly,
        trace,
        profile,
      }),
    );
  } finally {
    await peerFakes.close();
  }
  process.exit(0);
}

const INSPECTOR_PORT = 9340;
/** What the Worker logged in this invocation's runs (a scenario that waits in vain shows why there). */
const WRANGLER_LOG = "bench/results/wrangler-dev.log";
rmSync(WRANGLER_LOG, { force: true });

const fakes = await startFakes({ recordRequests: false });
const results: ScenarioResult[][] = [];
let cost: CostReport | undefined;
const limits: LimitsReport[] = [];
/** `--plan free`: the limits scenario with the bot deployed for that plan only (default: Paid, then Free). */
const plans =
  text("plan") === undefined ? (["paid", "free"] as const) : ([text("plan") === "free" ? "free" : "paid"] as const);
let bot: Bot | undefined;
try {
  for (let run = 1; withTimed && run <= runs; run++) {
    console.error(`run ${run} of ${runs}${quick ? " (quick)" : ""}`);
    // A fresh local state per run, so every run starts from the same empty storage.
    bot = await startBot(fakes.url, {
      inspectorPort: INSPECTOR_PORT,
      ...(checkout ? { checkout } : {}),
      ...(unminified ? { minify: false } : {}),
      logFile: WRANGLER_LOG,
    });
    const profiler = await connectProfiler(INSPECTOR_PORT);
    try {
      results.push(
        await scenarios(bot, fakes, {
          quick,
          modelLatencyMs,
          profiler,
          ...(timed ? { only: timed } : {}),
          log: (line) => console.error(`  ${line}`),
        }),
      );
    } finally {
      profiler.close();
    }
    const bundle = unminified ? newestDevBundle(checkout ? `${checkout}/.wrangler/tmp` : undefined) : undefined;
    if (bundle) copyFileSync(bundle, "bench/results/run-worker.js");
    await bot.stop();
    bot = undefined;
  }
  if (withCost) {
    console.error("cost: the counting wrapper, once");
    try {
      cost = await costScenario(fakes, { quick, log: (line) => console.error(`  ${line}`) });
    } catch (error) {
      // The timed runs' results are kept; the cost table is missing from this report (and from BENCHMARKS.md).
      console.error(
        `the cost scenario failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    }
  }
  if (withLimits) {
    console.error("limits: the counting wrapper, per invocation");
    try {
      for (const plan of plans)
        limits.push(await limitsScenario(fakes, { quick, plan, log: (line) => console.error(`  ${line}`) }));
    } catch (error) {
      console.error(
        `the limits scenario failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    }
  }
} finally {
  await bot?.stop();
  await fakes.close();
}

const size = await bundleSize(checkout);
const chosen = results.length > 0 ? medianRun(results) : [];
const machine = {
  cores: cpus().length,
  cpu: cpus()[0]?.model ?? "unknown",
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  wrangler: JSON.parse(readFileSync(`${checkout ?? "."}/node_modules/wrangler/package.json`, "utf8")).version as string,
};
const report = {
  date: new Date().toISOString(),
  quick,
  runs,
  modelLatencyMs,
  ...(checkout ? { checkout } : {}),
  machine,
  size,
  scenarios: chosen,
  allRuns: results,
  ...(cost ? { cost } : {}),
  ...(limits.length > 0 ? { limits } : {}),
};
const table = formatTable(report);
console.log(table);
if (cost) console.log(`\n${formatCost(cost)}\n\nStatements of one plain turn:\n\n${formatStatements(cost)}`);
if (limits.length > 0) console.log(`\nPer invocation:\n\n${formatLimits(limits)}`);

mkdirSync("bench/results", { recursive: true });
// Partial runs (--only) are for comparing versions by hand, and are not kept in git.
const suffix = `${quick ? "-quick" : ""}${checkout ? `-${checkout.replace(/\/+$/, "").split("/").at(-1)}` : ""}`;
const file = only
  ? `bench/results/only-${report.date.slice(0, 16).replace(/[T:]/g, "-")}-${only.join("-")}${suffix}.json`
  : `bench/results/${report.date.slice(0, 10)}${suffix}.json`;
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
console.error(`wrote ${file}`);
if (!quick && !only && !checkout) {
  const markdown = readFileSync("BENCHMARKS.md", "utf8");
  const updated = markdown
    .replace(/<!-- bench:start -->[\s\S]*<!-- bench:end -->/, `<!-- bench:start -->\n${table}\n<!-- bench:end -->`)
    .replace(
      /<!-- cost:start -->[\s\S]*<!-- cost:end -->/,
      cost ? `<!-- cost:start -->\n${formatCost(cost)}\n<!-- cost:end -->` : "$&",
    )
    .replace(
      /<!-- statements:start -->[\s\S]*<!-- statements:end -->/,
      cost ? `<!-- statements:start -->\n${formatStatements(cost)}\n<!-- statements:end -->` : "$&",
    )
    .replace(
      /<!-- limits:start -->[\s\S]*<!-- limits:end -->/,
      limits.length > 0 ? `<!-- limits:start -->\n${formatLimits(limits)}\n<!-- limits:end -->` : "$&",
    );
  writeFileSync("BENCHMARKS.md", updated);
  // The tables as the house style (biome, which `npm run lint` checks) lays them out: a full run leaves lint green.
  spawnSync("npx", ["biome", "format", "--write", "BENCHMARKS.md"], { stdio: "ignore" });
  console.error("updated BENCHMARKS.md");
}
const failed = chosen.flatMap((scenario) =>
  scenario.checks.filter((check) => !check.ok).map((check) => `${scenario.name}: ${check.name}`),
);
if (size.gzipKiB > MAX_WORKER_GZIP_KIB) failed.push(`size: ${size.gzipKiB} KiB gzip, over ${MAX_WORKER_GZIP_KIB}`);
if (failed.length > 0) console.error(`targets missed: ${failed.join("; ")}`);
// What the fake Telegram refused, or would not know (a method or field the Bot API lacks), is a bug of the bot.
if (fakes.refusals.length > 0) console.error(`Telegram refused: ${fakes.refusals.slice(0, 10).join("; ")}`);
const violations = fakes.telegram.violations.map(describeViolation);
if (violations.length > 0) console.error(`the Bot API does not know: ${[...new Set(violations)].join("; ")}`);
// Lost, duplicated or reordered answers are bugs, not slowness: they fail the run (and CI's smoke run).
const broken =
  chosen.some((scenario) => scenario.integrity === false) ||
  violations.length > 0 ||
  limits.some((report) => report.cases.some((item) => !item.answered));
process.exit(broken ? 1 : 0);
