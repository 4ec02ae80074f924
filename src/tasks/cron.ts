/**
 * Cron expressions in an IANA time zone: five fields (minute hour day-of-month month day-of-week) or six (seconds
 * first), `*` and `?`, lists, ranges and steps, month and weekday names (7 is Sunday too), and the nicknames
 * `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly`. As in Vixie cron (and croner's
 * default), a day is chosen when its day of the month or its weekday matches if both fields are restricted.
 * Written here rather than with croner: 10 KiB gzip of the Worker's 250 KiB budget (issue 41) for what a task needs,
 * and checked against croner in its test.
 */

/** An expression that is not cron, with what is wrong. */
export class CronSyntaxError extends Error {
  override readonly name = "CronSyntaxError";
}

interface CronFields {
  seconds: readonly number[];
  minutes: readonly number[];
  hours: readonly number[];
  days: ReadonlySet<number>;
  months: ReadonlySet<number>;
  weekdays: ReadonlySet<number>;
  /** Whether both the day of the month and the weekday are restricted (then either one chooses a day). */
  either: boolean;
}

const NICKNAMES: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};
const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
/** How far ahead a run is looked for: past this an expression (30 February) never runs. */
const SEARCH_YEARS = 28;

export function parseCron(expression: string): CronFields {
  const text = NICKNAMES[expression.trim().toLowerCase()] ?? expression.trim();
  const parts = text.split(/\s+/);
  if (parts.length !== 5 && parts.length !== 6) {
    throw new CronSyntaxError(`expected 5 or 6 fields, found ${parts.length}`);
  }
  const [second, minute, hour, day, month, weekday] = parts.length === 6 ? parts : ["0", ...parts];
  const weekdays = field(weekday!, "weekday", 0, 7, WEEKDAYS);
  return {
    seconds: [...field(second!, "seconds", 0, 59)].sort((a, b) => a - b),
    minutes: [...field(minute!, "minute", 0, 59)].sort((a, b) => a - b),
    hours: [...field(hour!, "hour", 0, 23)].sort((a, b) => a - b),
    days: field(day!, "day of the month", 1, 31),
    months: field(month!, "month", 1, 12, MONTHS),
    weekdays: new Set([...weekdays].map((value) => value % 7)),
    either: !isAny(day!) && !isAny(weekday!),
  };
}

/** The first `count` runs strictly after `after` (epoch ms), as epoch ms; fewer when the expression stops running. */
export function nextRuns(fields: CronFields, timezone: string, after: number, count: number): number[] {
  const runs: number[] = [];
  const start = wallClock(after, timezone);
  const first = Date.UTC(start.year, start.month - 1, start.day);
  for (let dayIndex = 0; dayIndex < SEARCH_YEARS * 366 && runs.length < count; dayIndex++) {
    const date = new Date(first + dayIndex * 86_400_000);
    const day = date.getUTCDate();
    if (!fields.months.has(date.getUTCMonth() + 1)) continue;
    const byDay = fields.days.has(day);
    const byWeekday = fields.weekdays.has(date.getUTCDay());
    if (fields.either ? !(byDay || byWeekday) : !(byDay && byWeekday)) continue;
    for (const hour of fields.hours) {
      for (const minute of fields.minutes) {
        for (const second of fields.seconds) {
          const wall = date.getTime() + ((hour * 60 + minute) * 60 + second) * 1000;
          // No zone is more than 12 hours behind UTC: this wall time is before `after` wherever it is.
          if (wall + 12 * 3_600_000 <= after) continue;
          const epoch = zonedToEpoch(wall, timezone);
          if (epoch <= after) continue;
          if (runs.length > 0 && epoch <= runs.at(-1)!) continue;
          runs.push(epoch);
          if (runs.length === count) return runs;
        }
      }
    }
  }
  return runs;
}

function isAny(text: string): boolean {
  return text === "*" || text === "?";
}

/** One field's values: `*`, `?`, or a list of `a`, `a-b`, `*\/n`, `a-b/n`, `a/n`, numbers or names. */
function field(text: string, name: string, min: number, max: number, names?: readonly string[]): Set<number> {
  const values = new Set<number>();
  const value = (token: string): number => {
    const named = names?.indexOf(token.toLowerCase()) ?? -1;
    const number = named >= 0 ? named + (names === MONTHS ? 1 : 0) : /^\d+$/.test(token) ? Number(token) : Number.NaN;
    if (!(number >= min && number <= max)) throw new CronSyntaxError(`${token} is not a valid ${name}`);
    return number;
  };
  for (const item of text.split(",")) {
    const match = /^(\*|\?|[a-z0-9]+(?:-[a-z0-9]+)?)(?:\/(\d+))?$/i.exec(item);
    if (!match) throw new CronSyntaxError(`${item} is not a valid ${name}`);
    const [, range, stepText] = match;
    const step = stepText === undefined ? 1 : Number(stepText);
    if (step < 1) throw new CronSyntaxError(`a step of ${stepText} in the ${name}`);
    let low = min;
    let high = max;
    if (range !== "*" && range !== "?") {
      const [from, to] = range!.split("-");
      low = value(from!);
      high = to === undefined ? (stepText === undefined ? low : max) : value(to);
      if (high < low) throw new CronSyntaxError(`${item} is a backwards range in the ${name}`);
    }
    for (let current = low; current <= high; current += step) values.add(current);
  }
  return values;
}

/** One formatter per zone: building one costs more than formatting with it. */
const FORMATS = new Map<string, Intl.DateTimeFormat>();

/** The wall clock in `timezone` at `epoch`, read through Intl (the runtime's time zone database). */
function wallClock(epoch: number, timezone: string): { year: number; month: number; day: number; wall: number } {
  let format = FORMATS.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: timezone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    FORMATS.set(timezone, format);
  }
  const parts = format.formatToParts(new Date(epoch));
  const part = (type: string) => Number(parts.find((entry) => entry.type === type)?.value);
  const [year, month, day] = [part("year"), part("month"), part("day")];
  return { year, month, day, wall: Date.UTC(year, month - 1, day, part("hour") % 24, part("minute"), part("second")) };
}

/** The wall time at `epoch` as if it were UTC (whole seconds). */
function wallOf(epoch: number, timezone: string): number {
  return wallClock(epoch, timezone).wall;
}

/**
 * A wall time (given as if UTC) in `timezone` as epoch ms, as croner reads it: of a time the autumn change shows twice
 * the first, and a time the spring change skips runs when the clocks jump.
 */
function zonedToEpoch(wall: number, timezone: string): number {
  const offset = (epoch: number) => wallOf(epoch, timezone) - epoch;
  const readings = [wall - offset(wall - 86_400_000), wall - offset(wall + 86_400_000)]
    .filter((epoch) => wallOf(epoch, timezone) === wall)
    .sort((a, b) => a - b);
  return readings[0] ?? clocksJump(wall, timezone);
}

/** The instant a zone's clocks jump over `wall` (a time that does not exist there), to the minute. */
function clocksJump(wall: number, timezone: string): number {
  const offset = (epoch: number) => wallOf(epoch, timezone) - epoch;
  // Before the jump the zone is behind its later self: search between the two readings of the wall time.
  let low = wall - offset(wall + 86_400_000);
  let high = wall - offset(wall - 86_400_000);
  const later = offset(high);
  while (high - low > 60_000) {
    const middle = low + Math.floor((high - low) / 120_000) * 60_000;
    if (offset(middle) === later) high = middle;
    else low = middle;
  }
  return high;
}
