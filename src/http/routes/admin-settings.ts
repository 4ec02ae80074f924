import { Hono } from "hono/tiny";
import * as z from "zod";
import { settingsChanged, settingsOf } from "../../config/loaded-settings.ts";
import { isSettingName, SETTINGS_SCHEMA } from "../../config/settings-schema.ts";
import { settingsView } from "../../config/settings-view.ts";
import { SettingsStore } from "../../config/stored-settings.ts";
import type { Env } from "../../env.ts";
import { HttpError } from "../../protocol/http/error.ts";
import { jsonBody } from "../../protocol/http/json-body.ts";

const MAX_BODY_BYTES = 64 * 1024;

/** Where a knob that is not a setting is set instead. */
const ELSEWHERE = {
  secret: "a secret: set it with `npx wrangler secret put` (or `npm run deploy`), never here",
  variable: "a deployment's variable: set it in wrangler.toml's [vars] (or .dev.vars), never here",
} as const;

/**
 * A change to the console's settings: names of `setting` knobs and their new values (text, numbers and booleans are
 * taken as text); null or "" removes one, so its variable or default applies again. Each value is checked by its
 * knob, and the whole change is refused if any is wrong.
 */
export const settingsPatchSchema = z
  .record(z.string().max(100), z.union([z.string().max(10_000), z.number(), z.boolean()]).nullable())
  .superRefine((patch, ctx) => {
    for (const [name, value] of Object.entries(patch)) {
      if (!isSettingName(name)) {
        ctx.addIssue({ code: "custom", path: [name], message: `${name} is not a setting of this bot` });
        continue;
      }
      const knob = SETTINGS_SCHEMA[name];
      if (knob.kind !== "setting") {
        ctx.addIssue({ code: "custom", path: [name], message: `${name} is ${ELSEWHERE[knob.kind]}` });
        continue;
      }
      const text = value === null ? "" : String(value).trim();
      if (text === "") continue;
      const reading = knob.read(text);
      if (!reading.ok) ctx.addIssue({ code: "custom", path: [name], message: `${name} ${reading.problem}` });
    }
  });

/**
 * `/admin/settings`: every knob with its default, bounds, description and where its value comes from (GET), and
 * changes to the ones the console may change (PATCH), kept in KV and in force at once in this isolate and within a
 * minute everywhere, with no redeploy. Secrets are never shown, only whether they are set.
 */
export function adminSettingsRoutes(): Hono<{ Bindings: Env }> {
  return new Hono<{ Bindings: Env }>()
    .get("/settings", (c) => c.json(report(c.env), 200))
    .patch("/settings", jsonBody(settingsPatchSchema, { maxBytes: MAX_BODY_BYTES }), async (c) => {
      const patch = c.req.valid("json");
      // A variable that is set wins: a change here would be kept and never used, so it is refused with the reason.
      const pinned = Object.keys(patch).filter(
        (name) => isSettingName(name) && settingsOf(c.env).sources[name] === "variable",
      );
      if (pinned.length > 0) {
        throw new HttpError(409, {
          code: "set_by_variable",
          message: `Set by a variable, which wins over the console: ${pinned.join(", ")}. Change or remove the variable (wrangler.toml or .dev.vars) instead.`,
          details: pinned.map((name) => ({ field: name, problem: `${name} is set by a variable, which wins` })),
        });
      }
      const settingsStore = new SettingsStore(c.env.CONFIG);
      const read = await settingsStore.read();
      const next: Record<string, string> = { ...(read.state === "ok" ? read.values : settingsOf(c.env).stored) };
      for (const [name, value] of Object.entries(patch)) {
        const text = value === null ? "" : String(value).trim();
        if (text === "") delete next[name];
        else next[name] = text;
      }
      await settingsStore.write(next);
      settingsChanged(c.env, next);
      return c.json(report(c.env), 200);
    });
}

function report(env: Env) {
  const settings = settingsOf(env);
  return { plan: settings.plan, settings: settingsView(settings, env), problems: settings.problems };
}
