import { type Account, type Binding, type DurableObjectNamespace, hexId } from "./accounts.ts";
import type { Reply } from "./envelope.ts";
import { PLAN_LIMITS } from "./plan-limits.ts";
import { keyValueDurableObjectsOnFree, migrationConflict, migrationTagMismatch } from "./refusals.ts";
import type { MigrationStep, UploadMetadata } from "./worker-upload.ts";

/**
 * Durable Object migrations as an upload carries them: `{ old_tag, new_tag, steps }`, where wrangler sends only the
 * `[[migrations]]` after the tag the script reports (`migration_tag` in `GET …/workers/services/:name`). Cloudflare
 * applies the steps in order and refuses an `old_tag` that is not the script's current tag (so a tag is never applied
 * twice), a class created twice, and key-value classes (`new_classes`) on the Free plan.
 *
 * Returns the account's namespaces as they will be once the upload is accepted (the caller commits them), or the
 * refusal.
 */
export function planMigrations(
  account: Account,
  scriptName: string,
  currentTag: string | undefined,
  migrations: UploadMetadata["migrations"],
): { namespaces: Map<string, DurableObjectNamespace>; newTag: string | undefined } | Reply {
  const namespaces = new Map(account.durableObjects);
  if (!migrations) return { namespaces, newTag: currentTag };
  if ((migrations.old_tag ?? undefined) !== currentTag) return migrationTagMismatch(currentTag);
  for (const step of migrations.steps) {
    const refused = applyStep(account, scriptName, namespaces, step);
    if (refused) return refused;
  }
  return { namespaces, newTag: migrations.new_tag ?? currentTag };
}

function key(script: string, className: string): string {
  return `${script}:${className}`;
}

function applyStep(
  account: Account,
  scriptName: string,
  namespaces: Map<string, DurableObjectNamespace>,
  step: MigrationStep,
): Reply | undefined {
  const create = (className: string, useSqlite: boolean): Reply | undefined => {
    if (namespaces.has(key(scriptName, className))) {
      return migrationConflict(
        `Cannot apply new-class migration to class '${className}' that already exists in script '${scriptName}'`,
      );
    }
    namespaces.set(key(scriptName, className), {
      id: hexId(),
      name: `${scriptName}_${className}`,
      script: scriptName,
      className,
      useSqlite,
    });
    return undefined;
  };
  if ((step.new_classes ?? []).length > 0 && !PLAN_LIMITS[account.plan].keyValueDurableObjects) {
    return keyValueDurableObjectsOnFree();
  }
  for (const className of step.new_classes ?? []) {
    const refused = create(className, false);
    if (refused) return refused;
  }
  for (const className of step.new_sqlite_classes ?? []) {
    const refused = create(className, true);
    if (refused) return refused;
  }
  for (const { from, to } of step.renamed_classes ?? []) {
    const existing = namespaces.get(key(scriptName, from));
    if (!existing) return migrationConflict(`Cannot apply renamed_classes migration to non-existent class '${from}'`);
    if (namespaces.has(key(scriptName, to))) {
      return migrationConflict(`Cannot rename class '${from}' to '${to}': '${to}' already exists`);
    }
    namespaces.delete(key(scriptName, from));
    namespaces.set(key(scriptName, to), { ...existing, className: to, name: `${scriptName}_${to}` });
  }
  for (const { from, from_script, to } of step.transferred_classes ?? []) {
    const existing = namespaces.get(key(from_script, from));
    if (!existing) {
      return migrationConflict(
        `Cannot apply transferred_classes migration to non-existent class '${from}' of script '${from_script}'`,
      );
    }
    namespaces.delete(key(from_script, from));
    namespaces.set(key(scriptName, to), { ...existing, script: scriptName, className: to });
  }
  for (const className of step.deleted_classes ?? []) {
    if (!namespaces.delete(key(scriptName, className))) {
      return migrationConflict(`Cannot apply deleted_classes migration to non-existent class '${className}'`);
    }
  }
  return undefined;
}

/** The namespace a Durable Object binding names (its own script's class unless `script_name` says another's). */
export function namespaceFor(
  namespaces: Map<string, DurableObjectNamespace>,
  scriptName: string,
  binding: Binding,
): DurableObjectNamespace | undefined {
  const script = typeof binding.script_name === "string" ? binding.script_name : scriptName;
  return namespaces.get(key(script, String(binding.class_name)));
}
