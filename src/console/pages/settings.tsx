import type { KnobGroup } from "../../config/knob.ts";
import type { SettingView } from "../../config/settings-view.ts";
import { Layout, Notice } from "../layout.tsx";

/** `GET /admin/settings`. */
export interface SettingsReport {
  plan: "free" | "paid";
  settings: SettingView[];
  problems: string[];
}

/**
 * Every knob, by group: the settings as inputs (empty means its default), the variables and secrets as what they
 * are, with where each value comes from. Saving sends only what changed, through PATCH /admin/settings.
 */
export function SettingsPage(props: {
  report: SettingsReport;
  groups: readonly KnobGroup[];
  /** What was typed, when a save was refused, and why each bad field was. */
  typed?: Record<string, string>;
  errors?: Record<string, string>;
  notice?: { text: string; bad: boolean };
  extraPages: { path: string; label: string }[];
}) {
  const { report } = props;
  return (
    <Layout title="Settings" current="/console/settings" signedIn extraPages={props.extraPages}>
      <h1>Settings</h1>
      <Notice text={props.notice?.text} bad={props.notice?.bad ?? false} />
      <p class="hint">
        Plan: <strong data-plan={report.plan}>Workers {report.plan === "free" ? "Free" : "Paid"}</strong>. A change is
        in force within a minute in every chat, with no redeploy. An empty field uses the default. A value set as a
        variable (wrangler.toml or .dev.vars) wins over this page, which then shows it and cannot change it.
      </p>
      <form method="post" action="/console/settings">
        {props.groups.map((group) => {
          const knobs = report.settings.filter((knob) => knob.group === group);
          if (knobs.length === 0) return null;
          return (
            <section>
              <h2>{group}</h2>
              {knobs.map((knob) => (
                <KnobField
                  knob={knob}
                  typed={props.typed?.[knob.name]}
                  {...(props.errors?.[knob.name] ? { error: props.errors[knob.name] } : {})}
                />
              ))}
            </section>
          );
        })}
        <p>
          <button type="submit">Save</button>
        </p>
      </form>
    </Layout>
  );
}

function KnobField(props: { knob: SettingView; typed: string | undefined; error?: string }) {
  const { knob } = props;
  const id = `setting-${knob.name}`;
  const about = (
    <span class="hint">
      {" "}
      — {knob.description}
      {knob.default === "" ? "" : ` Default: ${knob.default}.`}
    </span>
  );
  if (knob.kind === "secret") {
    return (
      <p data-setting={knob.name} data-source={knob.source}>
        <code>{knob.name}</code> (secret): {knob.set ? "set" : "not set"}
        {about}
      </p>
    );
  }
  if (knob.kind === "variable" || knob.source === "variable") {
    return (
      <p data-setting={knob.name} data-source={knob.source}>
        <code>{knob.name}</code> ({knob.kind === "variable" ? "variable" : "set by a variable"}):{" "}
        {knob.value === undefined ? <em>default</em> : <code>{knob.value}</code>}
        {about}
      </p>
    );
  }
  const value = props.typed ?? knob.value ?? "";
  return (
    <div data-setting={knob.name} data-source={knob.source}>
      <label for={id}>
        <code>{knob.name}</code>
      </label>
      <input
        id={id}
        name={knob.name}
        value={value}
        placeholder={knob.default === "" ? "(none)" : knob.default}
        class={props.error ? "invalid" : undefined}
        aria-invalid={props.error ? "true" : undefined}
      />
      {props.error && <div class="error">{props.error}</div>}
      <div class="hint">
        {knob.description} ({knob.rule})
      </div>
    </div>
  );
}
