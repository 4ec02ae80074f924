import type { KnobGroup, KnobKind } from "./knob.ts";
import type { SettingSource } from "./setting-values.ts";
import type { Settings } from "./settings.ts";
import { SETTING_NAMES, SETTINGS_SCHEMA } from "./settings-schema.ts";

/** One knob as the admin API and the console show it: never a secret's value. */
export interface SettingView {
  name: string;
  kind: KnobKind;
  group: KnobGroup;
  description: string;
  /** What a valid value is ("a whole number from 2 to 1000"). */
  rule: string;
  default: string;
  source: SettingSource;
  /** The text in force when it was set (a variable or the console); absent for secrets and defaults. */
  value?: string;
  /** Secrets: whether one is set. */
  set?: boolean;
}

/** Every knob with where its value comes from, as the settings were read (variables win over the console). */
export function settingsView(settings: Settings, variables: object): SettingView[] {
  return SETTING_NAMES.map((name) => {
    const knob = SETTINGS_SCHEMA[name];
    const source = settings.sources[name];
    const about = {
      name,
      kind: knob.kind,
      group: knob.group,
      description: knob.description,
      rule: knob.rule,
      default: knob.shownDefault,
      source,
    };
    if (knob.kind === "secret") return { ...about, set: source !== "default" };
    const text = source === "variable" ? variableText(variables, name) : settings.stored[name];
    return source === "default" || text === undefined ? about : { ...about, value: text };
  });
}

function variableText(variables: object, name: string): string | undefined {
  const value: unknown = Reflect.get(variables, name);
  return typeof value === "string" ? value.trim() : undefined;
}
