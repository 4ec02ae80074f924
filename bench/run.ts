/**
 * `npm run bench [-- --quick] [-- --model-latency-ms 1000] [-- --runs 3] [-- --only cpu,reply]`: the bot under `wrangler dev` on the
 * local runtime, driven with real Telegram update JSON over HTTP, against fake Telegram / OpenAI / Anthropic servers
 * on 127.0.0.1. Prints a table, writes bench/results/<date>.json, and (full runs) the table into BENCHMARKS.md.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { describeViolation } from "../scripts/bot-api/vocabulary.ts";
import { startFakes } from "../tests/fakes/server.ts";
import { type Bot, startBot } from "./bot.ts";
import { connectProfiler } from "./cpu.ts";
import { formatTable, medianRun } from "./report.ts";
import { type ScenarioResult, scenarios } from "./scenarios.ts";
import { bundleSize } from "./size.ts";

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const option = (name: string, fallback: number) => {
  const index = argv.indexOf(`--${name}`);
  return index >= 0 ? Number(argv[index + 1]) : fallback;
};
const quick = flag("quick");
const modelLatencyMs = option("model-latency-ms", 1000);
const runs = option("runs", quick ? 1 : 3);
const onlyIndex = argv.indexOf("--only");
/** `--only cpu,reply`: just those scenarios (after the cold start), for comparing two versions; BENCHMARKS.md is left alone. */
const only = onlyIndex >= 0 ? argv[onlyIndex + 1]?.split(",") : undefined;

const INSPECTOR_PORT = 9340;

const fakes = await startFakes({ recordRequests: false });
const results: ScenarioResult[][] = [];
let bot: Bot | undefined;
try {
  for (let run = 1; run <= runs; run++) {
    console.error(`run ${run} of ${runs}${quick ? " (quick)" : ""}`);
    // A fresh local state per run, so every run starts from the same empty storage.
    bot = await startBot(fakes.url, { inspectorPort: INSPECTOR_PORT });
    const profiler = await connectProfiler(INSPECTOR_PORT);
    try {
      results.push(
        await scenarios(bot, fakes, {
          quick,
          modelLatencyMs,
          profiler,
          only,
          log: (line) => console.error(`  ${line}`),
        }),
      );
    } finally {
      profiler.close();
    }
    await bot.stop();
    bot = undefined;
  }
} finally {
  await bot?.stop();
  await fakes.close();
}

const size = await bundleSize();
const chosen = medianRun(results);
const machine = {
  cores: cpus().length,
  cpu: cpus()[0]?.model ?? "unknown",
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  wrangler: JSON.parse(readFileSync("node_modules/wrangler/package.json", "utf8")).version as string,
};
const report = {
  date: new Date().toISOString(),
  quick,
  runs,
  modelLatencyMs,
  machine,
  size,
  scenarios: chosen,
  allRuns: results,
};
const table = formatTable(report);
console.log(table);

mkdirSync("bench/results", { recursive: true });
// Partial runs (--only) are for comparing versions by hand, and are not kept in git.
const file = only
  ? `bench/results/only-${report.date.slice(0, 10)}-${only.join("-")}${quick ? "-quick" : ""}.json`
  : `bench/results/${report.date.slice(0, 10)}${quick ? "-quick" : ""}.json`;
writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
console.error(`wrote ${file}`);
if (!quick && !only) {
  const markdown = readFileSync("BENCHMARKS.md", "utf8");
  const updated = markdown.replace(
    /<!-- bench:start -->[\s\S]*<!-- bench:end -->/,
    `<!-- bench:start -->\n${table}\n<!-- bench:end -->`,
  );
  writeFileSync("BENCHMARKS.md", updated);
  console.error("updated BENCHMARKS.md");
}
const failed = chosen.flatMap((scenario) =>
  scenario.checks.filter((check) => !check.ok).map((check) => `${scenario.name}: ${check.name}`),
);
if (failed.length > 0) console.error(`targets missed: ${failed.join("; ")}`);
// What the fake Telegram refused, or would not know (a method or field the Bot API lacks), is a bug of the bot.
if (fakes.refusals.length > 0) console.error(`Telegram refused: ${fakes.refusals.slice(0, 10).join("; ")}`);
const violations = fakes.telegram.violations.map(describeViolation);
if (violations.length > 0) console.error(`the Bot API does not know: ${[...new Set(violations)].join("; ")}`);
// Lost, duplicated or reordered answers are bugs, not slowness: they fail the run (and CI's smoke run).
const broken = chosen.some((scenario) => scenario.integrity === false) || violations.length > 0;
process.exit(broken ? 1 : 0);
