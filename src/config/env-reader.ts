import type { Env, EnvVariable } from "../env.ts";

/** A list of chat or user ids from a comma-separated variable; `*` means everyone. */
export type IdList = { kind: "everyone" } | { kind: "some"; ids: ReadonlySet<number> };

/**
 * Reads the environment's variables by kind. A value that is set but unusable is reported in `problems` by the
 * variable's name and what is wrong with it, never its value, and the default applies.
 */
export class EnvReader {
  readonly problems: string[] = [];
  // A plain field, not a parameter property: Node's type stripping runs this file for the scripts.
  private readonly env: Env;

  constructor(env: Env) {
    this.env = env;
  }

  /** A value with its surrounding space trimmed; empty counts as unset. */
  text(value: string | undefined): string | undefined {
    const trimmed = value?.trim();
    return trimmed ? trimmed : undefined;
  }

  integer(name: EnvVariable, fallback: number, min: number, max: number): number {
    const raw = this.text(this.env[name]);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return value;
  }

  /** A whole number from `min` to `max`, or unset (undefined). */
  optionalInteger(name: EnvVariable, min: number, max: number): number | undefined {
    const raw = this.text(this.env[name]);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be a whole number from ${min} to ${max}, or empty`);
      return undefined;
    }
    return value;
  }

  /** Chat or user ids, comma-separated; `*` (everyone) only where `everyoneAllowed`. */
  idList(name: EnvVariable, { everyoneAllowed }: { everyoneAllowed: boolean }): IdList {
    const raw = this.text(this.env[name]);
    if (raw === undefined) return { kind: "some", ids: new Set() };
    if (raw === "*") {
      if (everyoneAllowed) return { kind: "everyone" };
      // Everyone an admin would make every member of every allowed chat an admin: refused, not guessed.
      this.problems.push(`${name} cannot be *: list the ids`);
      return { kind: "some", ids: new Set() };
    }
    const ids = new Set<number>();
    for (const part of raw.split(",")) {
      const item = part.trim();
      if (item === "") continue;
      const id = Number(item);
      if (/^-?\d+$/.test(item) && Number.isSafeInteger(id)) ids.add(id);
      else this.problems.push(`${name} has an entry that is not a chat or user id`);
    }
    return { kind: "some", ids };
  }

  /** An http(s) URL, without its trailing slashes. */
  url(name: EnvVariable): string | undefined {
    const raw = this.text(this.env[name]);
    if (raw === undefined) return undefined;
    try {
      const parsed = new URL(raw);
      if (parsed.protocol === "http:" || parsed.protocol === "https:") return raw.replace(/\/+$/, "");
    } catch {
      // reported below
    }
    this.problems.push(`${name} must be an http(s) URL`);
    return undefined;
  }

  onOff(name: EnvVariable, fallback: boolean): boolean {
    const raw = this.text(this.env[name])?.toLowerCase();
    if (raw === undefined) return fallback;
    if (raw === "on" || raw === "true" || raw === "1") return true;
    if (raw === "off" || raw === "false" || raw === "0") return false;
    this.problems.push(`${name} must be on or off`);
    return fallback;
  }

  /** A number from 0 to `max` (decimals allowed), or the default when unset. */
  number(name: EnvVariable, fallback: number, max: number): number {
    return this.optionalNumber(name, max) ?? fallback;
  }

  /** A number from 0 to `max`, or unset (no limit). */
  optionalNumber(name: EnvVariable, max: number): number | undefined {
    const raw = this.text(this.env[name]);
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0 || value > max) {
      this.problems.push(`${name} must be a number from 0 to ${max}, or empty for no limit`);
      return undefined;
    }
    return value;
  }

  choice<Choice extends string>(name: EnvVariable, choices: readonly Choice[], fallback: Choice): Choice {
    const raw = this.text(this.env[name])?.toLowerCase();
    if (raw === undefined) return fallback;
    const found = choices.find((option) => option === raw);
    if (found === undefined) this.problems.push(`${name} must be one of ${choices.join(", ")}`);
    return found ?? fallback;
  }
}
