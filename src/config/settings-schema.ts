import type { Knob, KnobValue } from "./knob.ts";
import { ACCESS_KNOBS } from "./knobs/access-knobs.ts";
import { AGENT_KNOBS } from "./knobs/agent-knobs.ts";
import { DEPLOYMENT_KNOBS } from "./knobs/deployment-knobs.ts";
import { GENERAL_KNOBS } from "./knobs/general-knobs.ts";
import { HISTORY_KNOBS } from "./knobs/history-knobs.ts";
import { LIMITS_KNOBS } from "./knobs/limits-knobs.ts";
import { MEDIA_KNOBS } from "./knobs/media-knobs.ts";
import { MODEL_KNOBS } from "./knobs/model-knobs.ts";
import { REPLY_KNOBS } from "./knobs/reply-knobs.ts";
import { SEARCH_KNOBS } from "./knobs/search-knobs.ts";
import { SPEECH_KNOBS } from "./knobs/speech-knobs.ts";

/**
 * Every knob of the bot, the single source of its name, kind, default, bounds and description: the settings reader,
 * the admin API's /admin/settings, the console's Settings page and the README's configuration table
 * (`npm run docs:settings`) are made from this table.
 */
export const SETTINGS_SCHEMA = {
  ...GENERAL_KNOBS,
  ...ACCESS_KNOBS,
  ...MODEL_KNOBS,
  ...HISTORY_KNOBS,
  ...REPLY_KNOBS,
  ...LIMITS_KNOBS,
  ...MEDIA_KNOBS,
  ...SPEECH_KNOBS,
  ...SEARCH_KNOBS,
  ...AGENT_KNOBS,
  ...DEPLOYMENT_KNOBS,
} as const satisfies Record<string, Knob<unknown>>;

export type SettingName = keyof typeof SETTINGS_SCHEMA;
export type SettingValues = { readonly [Name in SettingName]: KnobValue<(typeof SETTINGS_SCHEMA)[Name]> };

export const SETTING_NAMES = Object.keys(SETTINGS_SCHEMA) as SettingName[];

export function isSettingName(name: string): name is SettingName {
  return Object.hasOwn(SETTINGS_SCHEMA, name);
}

/** The knobs the console and the admin API may change (kind `setting`). */
export function isChangeable(name: string): name is SettingName {
  return isSettingName(name) && SETTINGS_SCHEMA[name].kind === "setting";
}
