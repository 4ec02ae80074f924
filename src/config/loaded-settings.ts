import type { Env } from "../env.ts";
import { readSettings, type Settings } from "./settings.ts";
import { SettingsStore, type StoredSettingValues } from "./stored-settings.ts";

/** How long an isolate keeps the console's settings before it reads them again (KV itself may take that long). */
const STORED_TTL_MS = 60_000;

interface Loaded {
  settings: Settings;
  /** When the console's settings were read; -Infinity when they never were (variables and defaults only). */
  readAt: number;
}

let loaded = new WeakMap<Env, Loaded>();

/** Tests: storage is wiped between tests, so the settings read from it are forgotten too. */
export function forgetLoadedSettings(): void {
  loaded = new WeakMap();
}

/**
 * The settings of this environment as last loaded (`loadSettings`, which every entry point awaits first): one object
 * per isolate, read again at most once a minute.
 */
export function settingsOf(env: Env): Settings {
  let entry = loaded.get(env);
  if (!entry) {
    entry = { settings: readSettings(env), readAt: Number.NEGATIVE_INFINITY };
    loaded.set(env, entry);
  }
  return entry.settings;
}

/**
 * Reads the console's settings from KV when this isolate's copy is older than a minute, and returns the settings.
 * One KV read a minute per isolate; a KV that cannot be read leaves the variables and defaults in force, and says so.
 */
export async function loadSettings(env: Env, now = Date.now()): Promise<Settings> {
  const entry = loaded.get(env);
  if (entry && now - entry.readAt < STORED_TTL_MS) return entry.settings;
  const read = await new SettingsStore(env.CONFIG).read();
  const settings =
    read.state === "ok"
      ? readSettings(env, read.values)
      : withProblem(readSettings(env, entry ? storedOf(entry.settings) : {}), read.problem);
  loaded.set(env, { settings, readAt: now });
  return settings;
}

/** After a change through this isolate (the admin API): in force here at once, elsewhere within a minute. */
export function settingsChanged(env: Env, stored: StoredSettingValues, now = Date.now()): Settings {
  const settings = readSettings(env, stored);
  loaded.set(env, { settings, readAt: now });
  return settings;
}

function withProblem(settings: Settings, problem: string): Settings {
  return { ...settings, problems: [...settings.problems, `${problem}: variables and defaults apply`] };
}

/** The console's values a settings object was read with, to keep while KV cannot be read. */
function storedOf(settings: Settings): StoredSettingValues {
  return settings.stored;
}
