import type { SkillsView } from "../admin-client.ts";
import { formatCount, Layout, Notice } from "../layout.tsx";

/** A skill form that was refused: what was typed, and the admin API's problems with it, each by field. */
export interface SkillForm {
  /** The skill being edited, or undefined for the upload form. */
  name?: string;
  markdown: string;
  problems: { field: string; problem: string }[];
}

const EXAMPLE = `---
name: packing-list
description: How to write a packing list for a trip
always: false
---

Group the items by bag, and end with the travel documents.`;

/**
 * A chat's (or the bot's) skills: each with its switches and an editor of its file, and a form to upload a new one.
 * `base` is where the forms post (`/console/skills` or `/console/chats/<id>/skills`); a refused form comes back with
 * what was typed and the API's problems next to it.
 */
export function SkillsSection(props: { base: string; view: SkillsView; form?: SkillForm; whose: string }) {
  const { view, form, base } = props;
  const problems = (name: string | undefined) =>
    form && form.name === name && form.problems.length > 0 ? (
      <div class="error" id={`skill-${name ?? "new"}-error`} data-field-error={name ?? "new-skill"} role="alert">
        {form.problems.map((problem) => (
          <div>
            {problem.field}: {problem.problem}
          </div>
        ))}
      </div>
    ) : null;
  const invalid = (name: string | undefined) => (form && form.name === name && form.problems.length > 0) || undefined;
  return (
    <section id="skills">
      <p class="hint">
        {props.whose} skills: {formatCount(view.totalChars)} of {formatCount(view.maxTotalChars)} characters; at most{" "}
        {formatCount(view.maxChars)} per skill. A skill marked <code>always</code> is in every system prompt; the others
        are listed by name and description and read when a request needs them.
      </p>
      {view.skills.length === 0 ? (
        <p>No skills yet.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>Skill</th>
                <th>How</th>
                <th>Size</th>
                <th>State</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {view.skills.map((skill) => (
                <tr data-skill={skill.name}>
                  <td>
                    <code>{skill.name}</code>
                    <div class="hint">{skill.description}</div>
                    <details open={invalid(skill.name)}>
                      <summary>Edit</summary>
                      <form method="post" action={`${base}/${skill.name}`} novalidate>
                        <label for={`skill-${skill.name}`}>The skill's file</label>
                        <textarea
                          id={`skill-${skill.name}`}
                          name="markdown"
                          class={invalid(skill.name) ? "invalid" : undefined}
                          aria-invalid={invalid(skill.name) ? "true" : undefined}
                          aria-describedby={invalid(skill.name) ? `skill-${skill.name}-error` : undefined}
                        >
                          {form && form.name === skill.name ? form.markdown : skill.markdown}
                        </textarea>
                        {problems(skill.name)}
                        <p>
                          <button type="submit">Save</button>
                        </p>
                      </form>
                    </details>
                  </td>
                  <td>{skill.always ? "always" : "on demand"}</td>
                  <td>{formatCount(skill.chars)}</td>
                  <td data-enabled={String(skill.enabled)}>{skill.enabled ? "on" : "off"}</td>
                  <td>
                    <div class="row">
                      {[skill.enabled ? "disable" : "enable", "delete"].map((action) => (
                        <form class="inline" method="post" action={`${base}/${skill.name}/${action}`}>
                          <button type="submit" class={action === "delete" ? "quiet" : undefined}>
                            {action[0]!.toUpperCase() + action.slice(1)}
                          </button>
                        </form>
                      ))}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form method="post" action={base} novalidate>
        <label for="new-skill">Add a skill (a Markdown file with front matter)</label>
        <textarea
          id="new-skill"
          name="markdown"
          placeholder={EXAMPLE}
          class={invalid(undefined) ? "invalid" : undefined}
          aria-invalid={invalid(undefined) ? "true" : undefined}
          aria-describedby={invalid(undefined) ? "skill-new-error" : undefined}
        >
          {form && form.name === undefined ? form.markdown : ""}
        </textarea>
        {problems(undefined)}
        <p>
          <button type="submit">Add</button>
        </p>
      </form>
    </section>
  );
}

/** The bot's own skills, which every chat has unless it has one of the same name. */
export function SkillsPage(props: {
  view: SkillsView;
  form?: SkillForm;
  notice?: { text: string; bad: boolean };
  extraPages: { path: string; label: string }[];
}) {
  return (
    <Layout title="Skills" current="/console/skills" signedIn extraPages={props.extraPages}>
      <h1>The bot's skills</h1>
      <Notice text={props.notice?.text} bad={props.notice?.bad ?? false} />
      <p class="hint">
        Every chat has these, unless it has a skill of the same name (set on its page). Changes reach the chats within a
        minute.
      </p>
      <SkillsSection
        base="/console/skills"
        view={props.view}
        whose="The bot's"
        {...(props.form ? { form: props.form } : {})}
      />
    </Layout>
  );
}
