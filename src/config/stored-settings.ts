import * as z from "zod";
import { isChangeable } from "./settings-schema.ts";

/** The KV key of the settings changed in the console or through /admin/settings: one JSON object of name → text. */
const KEY = "bot-settings";

/** What KV holds: names of `setting` knobs and their values as text (the same text a variable would hold). */
const storedSchema = z.record(z.string().max(100), z.string().max(10_000));
export type StoredSettingValues = Readonly<Record<string, string>>;

export type StoredSettingsRead =
  | { state: "ok"; values: StoredSettingValues }
  /** Someone wrote KV by hand, or KV could not be read: the variables and defaults apply, and /health says why. */
  | { state: "unusable"; problem: string };

/** The console's settings in KV. KV is eventually consistent: a change can take up to a minute elsewhere. */
export class SettingsStore {
  private readonly kv: KVNamespace;

  constructor(kv: KVNamespace) {
    this.kv = kv;
  }

  async read(): Promise<StoredSettingsRead> {
    let raw: string | null;
    try {
      raw = await this.kv.get(KEY, "text");
    } catch {
      return { state: "unusable", problem: "the console's settings could not be read from KV" };
    }
    if (raw === null) return { state: "ok", values: {} };
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return { state: "unusable", problem: "the console's settings in KV are not JSON" };
    }
    const parsed = storedSchema.safeParse(json);
    if (!parsed.success) return { state: "unusable", problem: "the console's settings in KV are not name → text" };
    // A knob that is no longer a setting (renamed, or now a variable only) is left out, not applied.
    return {
      state: "ok",
      values: Object.fromEntries(Object.entries(parsed.data).filter(([name]) => isChangeable(name))),
    };
  }

  async write(values: StoredSettingValues): Promise<void> {
    await this.kv.put(KEY, JSON.stringify(values));
  }
}
