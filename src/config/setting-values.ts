import type { Knob, Reading } from "./knob.ts";
import { SETTING_NAMES, SETTINGS_SCHEMA, type SettingName, type SettingValues } from "./settings-schema.ts";

/** Where a knob's value came from: its default, a variable (or secret), or the console (KV). */
export type SettingSource = "default" | "variable" | "console";

export interface ReadValues {
  values: SettingValues;
  sources: Readonly<Record<SettingName, SettingSource>>;
  /** What is wrong with set values, by name, never the value ("HISTORY_LIMIT must be a whole number from 2 to 1000"). */
  problems: string[];
}

/** A value with its surrounding space trimmed; empty counts as unset. */
function setText(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

/**
 * Every knob's value: a variable that is set wins, then (for `setting` knobs) the console's stored value, then the
 * default. A set value that is unusable is reported and its default applies.
 */
export function readValues(variables: object, stored: Readonly<Partial<Record<string, string>>> = {}): ReadValues {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  const sources: Record<string, SettingSource> = {};
  for (const name of SETTING_NAMES) {
    const knob: Knob<unknown> = SETTINGS_SCHEMA[name];
    const variable = setText(Reflect.get(variables, name));
    const console = knob.kind === "setting" ? setText(stored[name]) : undefined;
    const raw = variable ?? console;
    sources[name] = variable !== undefined ? "variable" : console !== undefined ? "console" : "default";
    if (raw === undefined) {
      values[name] = knob.fallback;
      continue;
    }
    const reading: Reading<unknown> = knob.read(raw);
    const where = variable !== undefined ? name : `${name} (set in the console)`;
    if (reading.ok) {
      values[name] = reading.value;
      for (const problem of reading.problems) problems.push(`${where} ${problem}`);
    } else {
      values[name] = knob.fallback;
      problems.push(`${where} ${reading.problem}`);
    }
  }
  // Built knob by knob from the schema above, so every name has a value of its knob's type.
  return { values: values as SettingValues, sources: sources as Record<SettingName, SettingSource>, problems };
}
