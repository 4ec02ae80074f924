import { errorText } from "../lib/errors.ts";
import { nextRuns, parseCron } from "./cron.ts";

/** A time or cron expression that cannot be scheduled, in words the model or the person can act on. */
export class ScheduleError extends Error {
  override readonly name = "ScheduleError";
}

/** Recurring tasks may not run more often than this: each run is a paid model turn. */
export const MIN_CRON_INTERVAL_MS = 5 * 60 * 1000;

const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * An ISO-8601 time as epoch ms. With an offset (`Z`, `+02:00`) it is exact; without one it is a wall-clock time in
 * `timezone`, which is what a model writes for "tomorrow at 9".
 */
export function parseAt(text: string, timezone: string): number {
  const match = ISO.exec(text.trim());
  if (!match) throw new ScheduleError(`"${text}" is not an ISO-8601 date and time such as 2026-05-01T09:00:00+02:00.`);
  const [, year, month, day, hour, minute, second, offset] = match;
  const wall = Date.UTC(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute),
    Number(second ?? 0),
  );
  const check = new Date(wall);
  // Date.UTC rolls 30 February over into March; a time the model got wrong is refused, not moved.
  if (
    check.getUTCMonth() !== Number(month) - 1 ||
    check.getUTCDate() !== Number(day) ||
    Number(hour) > 23 ||
    Number(minute) > 59 ||
    Number(second ?? 0) > 59
  ) {
    throw new ScheduleError(`"${text}" is not a valid date and time.`);
  }
  if (offset) {
    const epoch = Date.parse(text.trim().replace(" ", "T"));
    if (Number.isNaN(epoch)) throw new ScheduleError(`"${text}" is not a valid date and time.`);
    return epoch;
  }
  return wallTimeToEpoch(wall, timezone);
}

/** Converts a wall-clock time (given as if it were UTC) in `timezone` to epoch ms, settling DST in a second pass. */
function wallTimeToEpoch(wall: number, timezone: string): number {
  let epoch = wall - offsetOf(wall, timezone);
  epoch = wall - offsetOf(epoch, timezone);
  return epoch;
}

/** How far `timezone` is ahead of UTC at `epoch`, in ms. */
function offsetOf(epoch: number, timezone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: timezone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(new Date(epoch));
  const value = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  const asUtc = Date.UTC(
    value("year"),
    value("month") - 1,
    value("day"),
    value("hour") % 24,
    value("minute"),
    value("second"),
  );
  return asUtc - (epoch - (epoch % 1000));
}

/** Checks a cron expression in a time zone and returns its first run after `after`. */
export function nextCronRun(expression: string, timezone: string, after: number): number {
  let fields: ReturnType<typeof parseCron>;
  try {
    fields = parseCron(expression);
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
  } catch (error) {
    throw new ScheduleError(`"${expression}" is not a valid cron expression (${errorText(error)}).`);
  }
  const runs = nextRuns(fields, timezone, after, 6);
  if (runs.length === 0) throw new ScheduleError(`The cron expression "${expression}" never runs again.`);
  for (let index = 1; index < runs.length; index++) {
    if (runs[index]! - runs[index - 1]! < MIN_CRON_INTERVAL_MS) {
      throw new ScheduleError(
        `"${expression}" runs more often than every ${MIN_CRON_INTERVAL_MS / 60000} minutes; choose a longer interval.`,
      );
    }
  }
  return runs[0]!;
}

export function formatInZone(epoch: number, timezone: string): string {
  return new Intl.DateTimeFormat("en-GB", {
    timeZone: timezone,
    weekday: "short",
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hour12: false,
  }).format(new Date(epoch));
}
