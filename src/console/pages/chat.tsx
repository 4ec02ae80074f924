import { VOICE_REPLIES } from "../../config/chat-config.ts";
import type { ConfigView, DailyUsage, OutboxView, SkillsView, TaskRow, UsageReport } from "../admin-client.ts";
import { type FormField, type FormValues, PROVIDER_CHOICES, RICH_CHOICES } from "../config-form.ts";
import { formatTime, Layout, Notice } from "../layout.tsx";
import { type SkillForm, SkillsSection } from "./skills.tsx";
import { UsageSection } from "./usage.tsx";

export interface ChatPageProps {
  chatId: number;
  title: string;
  view: ConfigView;
  values: FormValues;
  errors: Partial<Record<FormField, string>>;
  notice?: { text: string; bad: boolean };
  tasks: TaskRow[];
  /** What waits for Telegram in the chat's outbox. */
  outbox: OutboxView;
  skills: SkillsView;
  /** A refused skill form, shown again with its problems. */
  skillForm?: SkillForm;
  daily: DailyUsage;
  report: UsageReport;
  now: number;
  extraPages: { path: string; label: string }[];
  /** What the model field suggests: the owner's MODEL_CHOICES, else what the providers serve (GET /admin/models). */
  models?: { provider: string; model: string }[];
}

export function ChatPage(props: ChatPageProps) {
  const { view, values, errors } = props;
  const field = (name: FormField) => ({
    id: name,
    name,
    class: errors[name] ? "invalid" : undefined,
    "aria-invalid": errors[name] ? "true" : undefined,
    "aria-describedby": errors[name] ? `${name}-error` : undefined,
  });
  const problem = (name: FormField) =>
    errors[name] ? (
      <div class="error" id={`${name}-error`} data-field-error={name}>
        {errors[name]}
      </div>
    ) : null;
  const options = (choices: readonly string[], current: string, defaultLabel: string) => (
    <>
      <option value="" selected={current === ""}>
        {defaultLabel}
      </option>
      {choices.map((choice) => (
        <option value={choice} selected={current === choice}>
          {choice}
        </option>
      ))}
    </>
  );
  return (
    <Layout title={props.title} current="/console/chats" signedIn extraPages={props.extraPages}>
      <h1>{props.title}</h1>
      <p class="hint">
        Chat <code>{props.chatId}</code> uses <strong>{view.effective.provider}</strong> with{" "}
        <code>{view.effective.model}</code> (provider from {view.effective.source.provider}, model from{" "}
        {view.effective.source.model}); {view.effective.enabled ? "enabled" : "disabled"}.
      </p>
      <Notice text={props.notice?.text} bad={props.notice?.bad ?? false} />
      <OutboxNotice outbox={props.outbox} />
      {view.invalid && (
        <Notice
          bad
          text={`The stored config is invalid (${view.invalid}): the chat gets no answers until it is saved again.`}
        />
      )}

      <h2>Config</h2>
      <form method="post" action={`/console/chats/${props.chatId}/config`} novalidate>
        <label for="provider">Provider</label>
        <select {...field("provider")}>{options(PROVIDER_CHOICES, values.provider, "(default)")}</select>
        {problem("provider")}
        <label for="model">Model</label>
        <input {...field("model")} value={values.model} placeholder="(the provider's default)" list="served-models" />
        <datalist id="served-models">
          {(props.models ?? []).map((choice) => (
            <option value={choice.model}>{choice.provider}</option>
          ))}
        </datalist>
        {problem("model")}
        <label for="systemPrompt">System prompt</label>
        <textarea {...field("systemPrompt")}>{values.systemPrompt}</textarea>
        {problem("systemPrompt")}
        <label for="tools">Tools (comma-separated; empty: all)</label>
        <input {...field("tools")} value={values.tools} />
        {problem("tools")}
        <label for="enabled">Enabled</label>
        <select {...field("enabled")}>{options(["yes", "no"], values.enabled, "(default: yes)")}</select>
        {problem("enabled")}
        <label for="timezone">Time zone</label>
        <input {...field("timezone")} value={values.timezone} placeholder="(DEFAULT_TIMEZONE)" />
        {problem("timezone")}
        <label for="budget.dailyTokens">Daily token budget</label>
        <input {...field("budget.dailyTokens")} value={values["budget.dailyTokens"]} placeholder="(default)" />
        {problem("budget.dailyTokens")}
        <label for="budget.dailyCostUsd">Daily cost budget (USD)</label>
        <input {...field("budget.dailyCostUsd")} value={values["budget.dailyCostUsd"]} placeholder="(default)" />
        {problem("budget.dailyCostUsd")}
        <label for="agentAccess">Who may use /agent</label>
        <select {...field("agentAccess")}>
          {options(["admins", "everyone"], values.agentAccess, "(default: admins)")}
        </select>
        {problem("agentAccess")}
        <label for="voiceReplies">Spoken answers</label>
        <select {...field("voiceReplies")}>{options(VOICE_REPLIES, values.voiceReplies, "(default: off)")}</select>
        {problem("voiceReplies")}
        <label for="richMessages">Rich messages (tables, headings, long answers in one message)</label>
        <select {...field("richMessages")}>
          {options(RICH_CHOICES, values.richMessages, "(default: RICH_MESSAGES)")}
        </select>
        {problem("richMessages")}
        <label for="showSteps">List the tool steps under a rich answer</label>
        <select {...field("showSteps")}>
          {options(["yes", "no"], values.showSteps, "(default: in private chats)")}
        </select>
        {problem("showSteps")}
        <p>
          <button type="submit">Save</button>
        </p>
        <p class="hint">
          An empty field removes the value and the default applies. Takes effect on the chat's next turn.
        </p>
      </form>

      <h2>Tasks</h2>
      {props.tasks.length === 0 ? (
        <p>No active or paused tasks.</p>
      ) : (
        <div class="scroll">
          <table>
            <thead>
              <tr>
                <th>#</th>
                <th>Task</th>
                <th>Schedule</th>
                <th>Next run</th>
                <th>Status</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {props.tasks.map((task) => (
                <tr data-task={String(task.id)}>
                  <td>{task.id}</td>
                  <td>{task.prompt.length > 120 ? `${task.prompt.slice(0, 119)}…` : task.prompt}</td>
                  <td>{task.cron ? `${task.cron} (${task.timezone})` : "once"}</td>
                  <td>{formatTime(task.nextRunAt)}</td>
                  <td data-status={task.status}>{task.status}</td>
                  <td>
                    <div class="row">
                      {(task.status === "active" ? ["pause", "cancel"] : ["resume", "cancel"]).map((action) => (
                        <form
                          class="inline"
                          method="post"
                          action={`/console/chats/${props.chatId}/tasks/${task.id}/${action}`}
                        >
                          <button type="submit" class={action === "cancel" ? "quiet" : undefined}>
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

      <h2>Memories</h2>
      <p>
        <a href={`/console/chats/${props.chatId}/memories`}>What was remembered in this chat</a> (its own facts and what
        its people said about themselves here), with a way to forget each.
      </p>
      <h2>Skills</h2>
      <SkillsSection
        base={`/console/chats/${props.chatId}/skills`}
        view={props.skills}
        whose="This chat's"
        {...(props.skillForm ? { form: props.skillForm } : {})}
      />

      <h2>Usage, last 30 days</h2>
      <UsageSection daily={props.daily} report={props.report} now={props.now} />
    </Layout>
  );
}

/** What waits for Telegram here (it was unavailable), and what Telegram last refused for good, if anything. */
function OutboxNotice(props: { outbox: OutboxView }) {
  const { waiting, oldestAt, nextTryAt, dropped, telegramRefused } = props.outbox;
  return (
    <>
      {waiting > 0 && (
        <p class="notice bad" role="status" data-outbox-waiting={waiting}>
          ⏳ {waiting} {waiting === 1 ? "message waits" : "messages wait"} for Telegram (the oldest since{" "}
          {formatTime(oldestAt)}; next try {formatTime(nextTryAt)}).
        </p>
      )}
      {telegramRefused && (
        <p class="hint" data-telegram-refused>
          Telegram last refused a message here at {formatTime(telegramRefused.at)}: {telegramRefused.description}
        </p>
      )}
      {dropped && (
        <p class="hint" data-outbox-dropped={dropped.count}>
          {dropped.count} {dropped.count === 1 ? "message was" : "messages were"} given up (the last at{" "}
          {formatTime(dropped.lastAt)}: {dropped.reason}).
        </p>
      )}
    </>
  );
}
