import type { ScenarioResult } from "./scenarios.ts";
import type { Summary } from "./stats.ts";

interface Report {
  date: string;
  quick: boolean;
  runs: number;
  machine: { cores: number; cpu: string; memoryGiB: number; node: string; wrangler: string };
  size: { rawKiB: number; gzipKiB: number };
  scenarios: ScenarioResult[];
}

/**
 * The median run: runs are noisy on a shared 2-core machine, so each scenario's figures are taken from the run whose
 * headline figure (p50 latency, or messages per second) is the median of the runs.
 */
export function medianRun(runs: ScenarioResult[][]): ScenarioResult[] {
  if (runs.length === 1) return runs[0]!;
  return runs[0]!.map((_, index) => {
    const candidates = runs.map((run) => run[index]!);
    const headline = (scenario: ScenarioResult) =>
      scenario.latency?.p50 ?? scenario.figures.messagesPerSecond ?? scenario.figures["p50 @10000"] ?? 0;
    const sorted = [...candidates].sort((left, right) => headline(left) - headline(right));
    const median = sorted[Math.floor(sorted.length / 2)]!;
    // Integrity must hold in every run, not just the median one.
    return { ...median, integrity: candidates.every((candidate) => candidate.integrity !== false) };
  });
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

function latencyCells(summary: Summary | undefined): string {
  return summary
    ? `${ms(summary.p50)} | ${ms(summary.p95)} | ${ms(summary.p99)} | ${ms(summary.max)} | ${summary.count}`
    : "| | | |";
}

export function formatTable(report: Report): string {
  const lines = [
    `Run ${report.date.slice(0, 16).replace("T", " ")} UTC${report.quick ? " (quick)" : `, median of ${report.runs} runs`} on ${report.machine.cores} cores (${report.machine.cpu}), ${report.machine.memoryGiB} GiB, Node ${report.machine.node}, wrangler ${report.machine.wrangler}.`,
    "",
    "| scenario | p50 | p95 | p99 | max | count | other figures |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const scenario of report.scenarios) {
    const figures = Object.entries(scenario.figures)
      .map(([name, value]) => `${name} ${Number.isInteger(value) ? value : value.toFixed(1)}`)
      .join(", ");
    lines.push(`| ${scenario.name} | ${latencyCells(scenario.latency)} | ${figures} |`);
  }
  lines.push(
    `| size | | | | | | ${report.size.rawKiB.toFixed(0)} KiB raw, ${report.size.gzipKiB.toFixed(0)} KiB gzip |`,
  );
  lines.push("", "| target | measured | met |", "|---|---|---|");
  for (const scenario of report.scenarios) {
    for (const check of scenario.checks)
      lines.push(`| ${check.name} | ${check.value} | ${check.ok ? "yes" : "**no**"} |`);
  }
  return lines.join("\n");
}
