import { isDeepStrictEqual } from "node:util";
import type { DeltaEntry, Spec, SpecDelta, SpecField, SpecMethod, SpecType } from "./spec-format.ts";

/**
 * The base spec with a delta's changes made: new methods and types defined, fields added, changed and removed,
 * results and subtypes replaced. Every change must change something the base has (or add what it lacks): once the
 * base package types a change itself, applying the delta fails and names the entry to drop, so that the delta never
 * silently outlives what it was written for.
 */
export function applyDelta(base: Spec, delta: SpecDelta): Spec {
  if (base.version !== delta.base.bot_api) {
    throw new Error(`the delta applies to ${delta.base.bot_api}, but the base is ${base.version}`);
  }
  const methods: Record<string, SpecMethod> = structuredClone(base.methods);
  const types: Record<string, SpecType> = structuredClone(base.types);
  for (const [name, entry] of Object.entries(delta.methods)) {
    const method = applyEntry(methods, name, entry, `method ${name}`) as SpecMethod;
    if (entry.returns) {
      if (isDeepStrictEqual(method.returns, entry.returns)) throw unchanged(`method ${name}`, "returns");
      method.returns = entry.returns;
    }
  }
  for (const [name, entry] of Object.entries(delta.types)) {
    if (entry.returns) throw new Error(`type ${name}: only a method has returns`);
    const type = applyEntry(types, name, entry, `type ${name}`);
    if (entry.subtypes) {
      if (isDeepStrictEqual(type.subtypes, entry.subtypes)) throw unchanged(`type ${name}`, "subtypes");
      type.subtypes = entry.subtypes;
    }
  }
  return { version: delta.version, release_date: delta.release_date, changelog: delta.changelog, methods, types };
}

function applyEntry<T extends SpecMethod | SpecType>(
  table: Record<string, T>,
  name: string,
  entry: DeltaEntry,
  what: string,
): T {
  if (entry.define) {
    if (table[name] && !entry.replaces) {
      throw new Error(`${what} is in the base already: drop it from the delta (or mark it "replaces")`);
    }
    if (!table[name] && entry.replaces) throw new Error(`${what} replaces nothing: the base has no such ${what}`);
    table[name] = { name, ...entry.define } as T;
  }
  const target = table[name];
  if (!target) throw new Error(`${what} is not in the base`);
  for (const [fieldName, change] of Object.entries(entry.fields ?? {})) {
    const fields: SpecField[] = target.fields ?? [];
    target.fields = fields;
    const index = fields.findIndex((field) => field.name === fieldName);
    const existing = fields[index];
    if (change === null) {
      if (!existing) throw new Error(`${what} removes ${fieldName}, which the base does not have`);
      fields.splice(index, 1);
    } else if (existing) {
      const changed: SpecField = { ...existing, ...change };
      if (changed.values?.length === 0) delete changed.values;
      if (isDeepStrictEqual(changed, existing)) throw unchanged(what, fieldName);
      fields[index] = changed;
    } else {
      if (!("types" in change && change.types) || !("required" in change) || change.required === undefined) {
        throw new Error(`${what} adds ${fieldName} without its types and whether it is required`);
      }
      fields.push({ name: fieldName, ...change } as SpecField);
    }
  }
  return target;
}

function unchanged(what: string, part: string): Error {
  return new Error(`${what}: the base has ${part} as the delta says already; drop that change from the delta`);
}
