import { PROVIDERS } from "../config/providers.ts";
import { RICH_MODES } from "../config/rich-modes.ts";

/** The config fields the console's form edits; other fields (set through the API) are kept as they are. */
export type FormValues = Record<FormField, string>;
const FORM_FIELDS = [
  "provider",
  "model",
  "systemPrompt",
  "tools",
  "enabled",
  "timezone",
  "budget.dailyTokens",
  "budget.dailyCostUsd",
  "agentAccess",
  "voiceReplies",
  "richMessages",
  "showSteps",
] as const;
export type FormField = (typeof FORM_FIELDS)[number];

export const PROVIDER_CHOICES = PROVIDERS;
export const RICH_CHOICES = RICH_MODES;

/** The form's values for a stored config: what is not set stays empty (the default applies). */
export function formValuesOf(config: Record<string, unknown> | undefined): FormValues {
  const budget = (config?.budget ?? {}) as Record<string, unknown>;
  const text = (value: unknown) => (value === undefined || value === null ? "" : String(value));
  return {
    provider: text(config?.provider),
    model: text(config?.model),
    systemPrompt: text(config?.systemPrompt),
    tools: Array.isArray(config?.tools) ? config.tools.join(", ") : "",
    enabled: config?.enabled === undefined ? "" : config.enabled ? "yes" : "no",
    timezone: text(config?.timezone),
    "budget.dailyTokens": text(budget.dailyTokens),
    "budget.dailyCostUsd": text(budget.dailyCostUsd),
    agentAccess: text(config?.agentAccess),
    voiceReplies: text(config?.voiceReplies),
    richMessages: text(config?.richMessages),
    showSteps: config?.showSteps === undefined ? "" : config.showSteps ? "yes" : "no",
  };
}

export function formValuesFrom(form: Record<string, string | File | (string | File)[]>): FormValues {
  const values = {} as FormValues;
  for (const field of FORM_FIELDS) {
    const value = form[field];
    values[field] = typeof value === "string" ? value : "";
  }
  return values;
}

/**
 * The JSON merge patch for `PATCH /admin/chats/:chatId/config`: an empty field removes the value (the default
 * applies). Only the types are converted here; whether a value is acceptable is the admin API's decision, so the
 * console shows exactly the API's field errors.
 */
export function patchOf(values: FormValues): Record<string, unknown> {
  const orNull = (value: string) => (value.trim() === "" ? null : value.trim());
  const numberOrText = (value: string): number | string | undefined => {
    const trimmed = value.trim();
    if (trimmed === "") return undefined;
    return trimmed !== "unlimited" && Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed;
  };
  const dailyTokens = numberOrText(values["budget.dailyTokens"]);
  const dailyCostUsd = numberOrText(values["budget.dailyCostUsd"]);
  const tools = values.tools
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  return {
    provider: orNull(values.provider),
    model: orNull(values.model),
    // A system prompt keeps its inner whitespace; only an all-blank one is removed.
    systemPrompt: values.systemPrompt.trim() === "" ? null : values.systemPrompt,
    tools: values.tools.trim() === "" ? null : tools,
    enabled: yesNo(values.enabled),
    timezone: orNull(values.timezone),
    budget:
      dailyTokens === undefined && dailyCostUsd === undefined
        ? null
        : {
            ...(dailyTokens === undefined ? {} : { dailyTokens }),
            ...(dailyCostUsd === undefined ? {} : { dailyCostUsd }),
          },
    agentAccess: orNull(values.agentAccess),
    voiceReplies: orNull(values.voiceReplies),
    richMessages: orNull(values.richMessages),
    showSteps: yesNo(values.showSteps),
  };
}

/** A yes/no select: true, false, null (empty: the default), or the value as it is (the API names it wrong). */
function yesNo(value: string): boolean | null | string {
  return value === "yes" ? true : value === "no" ? false : value === "" ? null : value;
}

/** The form field an API error's path belongs to (`tools.2` → `tools`, `budget.dailyTokens` stays). */
export function formFieldOf(path: string): FormField | undefined {
  const exact = FORM_FIELDS.find((field) => field === path);
  if (exact) return exact;
  return (
    FORM_FIELDS.find((field) => path.startsWith(`${field}.`)) ?? (path === "budget" ? "budget.dailyTokens" : undefined)
  );
}
