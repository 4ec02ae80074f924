/** Time-zone arithmetic on the runtime's Intl data: which day it is somewhere, and when that day starts and ends. */

const clockFormatters = new Map<string, Intl.DateTimeFormat>();
const dayFormatters = new Map<string, Intl.DateTimeFormat>();
const lastDayKeys = new Map<string, { minute: number; key: string }>();

export function isTimezone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Midnight today in the given time zone, as epoch milliseconds. */
export function startOfDay(now: number, timezone: string): number {
  const parts = cached(clockFormatters, timezone, {
    hour12: false,
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(new Date(now));
  const value = (type: string) => Number(parts.find((part) => part.type === type)?.value ?? 0);
  // Some engines print midnight as hour 24.
  const elapsed = (((value("hour") % 24) * 60 + value("minute")) * 60 + value("second")) * 1000 + (now % 1000);
  return now - elapsed;
}

/** The next midnight in the zone (a day may have 23 or 25 hours where clocks change). */
export function startOfNextDay(now: number, timezone: string): number {
  return startOfDay(startOfDay(now, timezone) + 26 * 60 * 60 * 1000, timezone);
}

/** The calendar day in the zone, as YYYY-MM-DD. */
export function dayKey(now: number, timezone: string): string {
  // Asked at every turn's admission and record; a day only turns at a whole minute (no zone's offset has seconds
  // today), so the last answer holds for the rest of its minute and formatting is skipped.
  const minute = Math.floor(now / 60_000);
  const last = lastDayKeys.get(timezone);
  if (last?.minute === minute) return last.key;
  // en-CA writes dates as YYYY-MM-DD.
  const key = cached(dayFormatters, timezone, { year: "numeric", month: "2-digit", day: "2-digit" }, "en-CA").format(
    new Date(now),
  );
  lastDayKeys.set(timezone, { minute, key });
  return key;
}

/** Building an Intl formatter costs more than the rest of a turn's date work; one per zone and shape is kept. */
function cached(
  formatters: Map<string, Intl.DateTimeFormat>,
  timezone: string,
  options: Intl.DateTimeFormatOptions,
  locale = "en-US",
): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat(locale, { ...options, timeZone: timezone });
    formatters.set(timezone, formatter);
  }
  return formatter;
}
