import type { DailyUsage } from "./admin-client.ts";
import { formatCount, formatUsd } from "./layout.tsx";

const COLORS = ["#2563eb", "#16a34a", "#d97706", "#9333ea", "#dc2626", "#0891b2", "#4b5563", "#db2777"];
const WIDTH = 640;
const HEIGHT = 220;
const LEFT = 56;
const BOTTOM = 28;
const TOP = 10;
const DAY_MS = 24 * 60 * 60 * 1000;

export type ChartMetric = "tokens" | "cost";

/**
 * Tokens (input + output) or cost per UTC day as bars stacked by model, drawn on the server as SVG: no script, no
 * charting library, and it prints and scales on a phone.
 */
export function UsageChart(props: { usage: DailyUsage; metric: ChartMetric; until: number }) {
  const days = dayLabels(props.usage.since, props.until);
  const models = [...new Set(props.usage.days.map((row) => `${row.provider}/${row.model}`))];
  const amountOf = (row: DailyUsage["days"][number]) =>
    props.metric === "tokens" ? row.inputTokens + row.outputTokens : row.costUsd;
  const stacks = days.map((day) => {
    let base = 0;
    return models.flatMap((model, index) => {
      const row = props.usage.days.find((entry) => entry.day === day && `${entry.provider}/${entry.model}` === model);
      const value = row ? amountOf(row) : 0;
      if (value <= 0) return [];
      const segment = { model, index, from: base, value };
      base += value;
      return [segment];
    });
  });
  const max = Math.max(0, ...stacks.map((stack) => stack.reduce((sum, segment) => sum + segment.value, 0)));
  const label = (value: number) => (props.metric === "tokens" ? formatCount(Math.round(value)) : formatUsd(value));
  const plotWidth = WIDTH - LEFT - 8;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / Math.max(1, days.length);
  const y = (value: number) => TOP + plotHeight - (max === 0 ? 0 : (value / max) * plotHeight);
  const title = props.metric === "tokens" ? "Tokens per day, by model" : "Cost per day (USD), by model";
  return (
    <figure style="margin:0">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        width={WIDTH}
        height={HEIGHT}
        role="img"
        aria-label={title}
        data-chart={props.metric}
        data-max={String(max)}
      >
        <title>{title}</title>
        <line x1={LEFT} y1={TOP + plotHeight} x2={WIDTH - 8} y2={TOP + plotHeight} stroke="#9aa3ad" />
        <text x={LEFT - 6} y={TOP + 8} text-anchor="end" font-size="11" fill="#56606b">
          {label(max)}
        </text>
        <text x={LEFT - 6} y={TOP + plotHeight} text-anchor="end" font-size="11" fill="#56606b">
          0
        </text>
        {stacks.map((stack, dayIndex) =>
          stack.map((segment) => (
            <rect
              class="bar"
              x={(LEFT + dayIndex * slot + slot * 0.15).toFixed(1)}
              y={y(segment.from + segment.value).toFixed(1)}
              width={(slot * 0.7).toFixed(1)}
              height={Math.max(1, y(segment.from) - y(segment.from + segment.value)).toFixed(1)}
              fill={COLORS[segment.index % COLORS.length]}
            >
              <title>{`${days[dayIndex]} ${segment.model}: ${label(segment.value)}`}</title>
            </rect>
          )),
        )}
        {days.map((day, dayIndex) =>
          dayIndex % Math.ceil(days.length / 6) === 0 || dayIndex === days.length - 1 ? (
            <text
              x={(LEFT + dayIndex * slot + slot / 2).toFixed(1)}
              y={HEIGHT - 8}
              text-anchor="middle"
              font-size="11"
              fill="#56606b"
            >
              {day.slice(5)}
            </text>
          ) : null,
        )}
      </svg>
      <figcaption class="row hint">
        {models.length === 0
          ? "No usage in this period."
          : models.map((model, index) => (
              <span>
                <span style={`color:${COLORS[index % COLORS.length]}`}>■</span> {model}
              </span>
            ))}
      </figcaption>
    </figure>
  );
}

/** Every UTC day from `since` (YYYY-MM-DD) to the day of `until`. */
function dayLabels(since: string, until: number): string[] {
  const labels: string[] = [];
  for (let day = Date.parse(`${since}T00:00:00Z`); day <= until && labels.length < 400; day += DAY_MS) {
    labels.push(new Date(day).toISOString().slice(0, 10));
  }
  return labels;
}
