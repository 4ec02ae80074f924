import type { Context } from "hono";
import { csrf } from "hono/csrf";
import { createMiddleware } from "hono/factory";
import { Hono } from "hono/tiny";
import { KNOB_GROUPS } from "../config/knob.ts";
import { settingsOf } from "../config/loaded-settings.ts";
import type { Env } from "../env.ts";
import { adminRoutes } from "../http/routes/admin.ts";
import { healthRoutes } from "../http/routes/health.ts";
import { clientOf, countWrongTry, isBlocked } from "../http/wrong-tries.ts";
import { secretsEqual } from "../protocol/http/bearer.ts";
import { handleError } from "../protocol/http/error.ts";
import {
  type AccessView,
  AdminClient,
  type ChatRow,
  type ConfigView,
  type DailyUsage,
  fieldProblems,
  type OutboxView,
  type SkillsView,
  type TaskRow,
  type UsageReport,
} from "./admin-client.ts";
import { type FormField, formFieldOf, formValuesFrom, formValuesOf, patchOf } from "./config-form.ts";
import { addMemoryRoutes } from "./memory-routes.tsx";
import { AccessPage } from "./pages/access.tsx";
import { ChatPage } from "./pages/chat.tsx";
import { ChatsPage } from "./pages/chats.tsx";
import { HealthPage, type HealthView } from "./pages/health.tsx";
import { SettingsPage, type SettingsReport } from "./pages/settings.tsx";
import { SignInPage } from "./pages/sign-in.tsx";
import type { SkillForm } from "./pages/skills.tsx";
import { UsagePage } from "./pages/usage.tsx";
import { playgroundRoutes } from "./playground.tsx";
import { endSession, hasSession, startSession } from "./session.ts";
import { addSkillRoutes, SKILL_NOTICES } from "./skills-routes.tsx";

type ConsoleEnv = { Bindings: Env; Variables: { admin: AdminClient } };

const adminApp = adminRoutes();
adminApp.onError((error, c) => handleError(error, c));
const healthApp = healthRoutes();

const CHAT_ID = /^-?\d{1,16}$/;
const NOTICES: Record<string, string> = {
  saved: "Saved. The chat uses it from its next turn.",
  pause: "Task paused.",
  resume: "Task resumed.",
  cancel: "Task cancelled.",
  approve: "Approved: the chat may talk to the bot now, and was told so.",
  revoke: "Revoked: the chat is refused from now on (within about a minute everywhere).",
  remove: "Removed from the admins.",
  ...SKILL_NOTICES,
};

/**
 * `/console`: the admin console, server-rendered HTML with forms and no client script. Signing in exchanges
 * ADMIN_TOKEN for a signed session cookie; every read and change goes through the admin API's own handlers.
 */
export function consoleRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  // Forms are posted only from the console's own pages: with SameSite=Strict this refuses cross-site posts.
  app.use("*", csrf());
  app.use("*", async (c, next) => {
    await next();
    c.header("cache-control", "no-store");
    // A playground widget's frame has a policy of its own (no network, sandboxed; see widget-frame.ts).
    if (c.req.path.startsWith("/console/playground/frame/") && c.res.headers.has("content-security-policy")) return;
    c.header("x-frame-options", "DENY");
    // The playground is the one page with a script (its own, same origin) and calls back to the console; its
    // widgets run in frames from the console's own origin, sandboxed.
    const scripts = c.req.path.startsWith("/console/playground")
      ? " script-src 'self'; connect-src 'self'; media-src 'self'; frame-src 'self';"
      : "";
    c.header(
      "content-security-policy",
      `default-src 'none'; style-src 'unsafe-inline';${scripts} form-action 'self'; frame-ancestors 'none'`,
    );
  });

  app.get("/sign-in", (c) => {
    const { adminToken: token, adminTokenWeak: weak } = settingsOf(c.env);
    return c.html(
      <SignInPage failed={false} unavailable={token === undefined} weak={weak} />,
      token === undefined ? 503 : 200,
    );
  });

  app.post("/sign-in", async (c) => {
    const expected = settingsOf(c.env).adminToken;
    if (expected === undefined) {
      return c.html(<SignInPage failed={false} unavailable weak={settingsOf(c.env).adminTokenWeak} />, 503);
    }
    const client = clientOf(c.req.raw);
    if (isBlocked(client)) return c.html(<SignInPage failed blocked />, 429);
    const form = await c.req.parseBody();
    const presented = typeof form.token === "string" ? form.token.trim() : "";
    if (presented === "" || !(await secretsEqual(presented, expected))) {
      await countWrongTry(c.env, client);
      return c.html(<SignInPage failed />, 401);
    }
    await startSession(c, expected, Date.now());
    return c.redirect("/console/chats", 303);
  });

  app.post("/sign-out", (c) => {
    endSession(c);
    return c.redirect("/console/sign-in", 303);
  });

  app.use("*", requireSession);

  app.get("/", (c) => c.redirect("/console/chats", 303));

  app.get("/chats", async (c) => {
    const chats = expect(await c.var.admin.get<{ chats: ChatRow[] }>("/chats"));
    return c.html(<ChatsPage chats={chats.chats} extraPages={extraPages(c)} />);
  });

  app.get("/chats/:chatId", async (c) => {
    const chatId = chatIdOf(c);
    if (chatId === undefined) return c.notFound();
    const notice = NOTICES[c.req.query("done") ?? ""];
    return c.html(await chatPage(c, chatId, notice ? { notice: { text: notice, bad: false } } : {}));
  });

  app.post("/chats/:chatId/config", async (c) => {
    const chatId = chatIdOf(c);
    if (chatId === undefined) return c.notFound();
    const values = formValuesFrom(await c.req.parseBody());
    const result = await c.var.admin.call("PATCH", `/chats/${chatId}/config`, patchOf(values));
    if (result.ok) return c.redirect(`/console/chats/${chatId}?done=saved`, 303);
    const errors: Partial<Record<FormField, string>> = {};
    const unplaced: string[] = [];
    for (const detail of fieldProblems(result.error)) {
      const field = formFieldOf(detail.field);
      if (field && errors[field] === undefined) errors[field] = detail.problem;
      else if (!field) unplaced.push(`${detail.field}: ${detail.problem}`);
    }
    const text = ["Not saved: fix the fields marked below.", ...unplaced].join(" ");
    return c.html(await chatPage(c, chatId, { values, errors, notice: { text, bad: true } }), 400);
  });

  app.post("/chats/:chatId/tasks/:taskId/:action{pause|resume|cancel}", async (c) => {
    const chatId = chatIdOf(c);
    const taskId = c.req.param("taskId");
    const action = c.req.param("action");
    if (chatId === undefined || !/^\d{1,12}$/.test(taskId)) return c.notFound();
    const result = await c.var.admin.call("POST", `/chats/${chatId}/tasks/${taskId}/${action}`);
    if (result.ok) return c.redirect(`/console/chats/${chatId}?done=${action}`, 303);
    return c.html(
      await chatPage(c, chatId, { notice: { text: result.error.message, bad: true } }),
      result.status === 404 ? 404 : 409,
    );
  });

  addSkillRoutes(app, { chatPage, extraPages });
  addMemoryRoutes(app, extraPages);

  app.get("/access", async (c) => {
    const notice = NOTICES[c.req.query("done") ?? ""];
    return c.html(await accessPage(c, notice ? { text: notice, bad: false } : undefined));
  });

  /** Each console action on access and the admin API call it is. */
  const accessActions: Record<string, (id: string) => [string, string]> = {
    "pairings/approve": (code) => ["POST", `/access/pairings/${code}/approve`],
    "chats/revoke": (chatId) => ["DELETE", `/access/chats/${chatId}`],
    "admins/remove": (userId) => ["DELETE", `/access/admins/${userId}`],
  };
  app.post("/access/:kind/:id/:action", async (c) => {
    const { kind, id, action } = c.req.param();
    const call = accessActions[`${kind}/${action}`];
    if (!call || !/^-?[0-9A-Z-]{1,20}$/.test(id)) return c.notFound();
    const [method, path] = call(id);
    const result = await c.var.admin.call(method, path);
    if (result.ok) return c.redirect(`/console/access?done=${action}`, 303);
    return c.html(await accessPage(c, { text: result.error.message, bad: true }), result.status === 404 ? 404 : 400);
  });

  app.get("/usage", async (c) => {
    const [daily, report] = await Promise.all([
      c.var.admin.get<DailyUsage>("/usage/daily?days=30"),
      c.var.admin.get<UsageReport>("/usage"),
    ]);
    return c.html(
      <UsagePage daily={expect(daily)} report={expect(report)} now={Date.now()} extraPages={extraPages(c)} />,
    );
  });

  app.get("/settings", async (c) => {
    const saved = c.req.query("done") === "saved";
    return c.html(
      <SettingsPage
        report={expect(await c.var.admin.get<SettingsReport>("/settings"))}
        groups={KNOB_GROUPS}
        {...(saved ? { notice: { text: "Saved. In force within a minute in every chat.", bad: false } } : {})}
        extraPages={extraPages(c)}
      />,
    );
  });

  app.post("/settings", async (c) => {
    const current = expect(await c.var.admin.get<SettingsReport>("/settings"));
    const form = await c.req.parseBody();
    const typed = changedSettings(current, form);
    if (Object.keys(typed).length === 0) return c.redirect("/console/settings", 303);
    const result = await c.var.admin.call("PATCH", "/settings", typed);
    if (result.ok) return c.redirect("/console/settings?done=saved", 303);
    const errors: Record<string, string> = {};
    for (const detail of fieldProblems(result.error)) errors[detail.field] ??= detail.problem;
    return c.html(
      <SettingsPage
        report={current}
        groups={KNOB_GROUPS}
        typed={typed}
        errors={errors}
        notice={{ text: "Not saved: fix the fields marked below.", bad: true }}
        extraPages={extraPages(c)}
      />,
      400,
    );
  });

  // Built only into `wrangler dev` (types/build-flags.d.ts): the deployed Worker has no stand-in to talk to.
  if (WITH_PLAYGROUND) app.route("/playground", playgroundRoutes(extraPages));

  app.get("/health", async (c) => {
    const response = await healthApp.request("http://health.internal/", {}, c.env, c.executionCtx);
    return c.html(<HealthPage health={await response.json<HealthView>()} extraPages={extraPages(c)} />);
  });

  return app;
}

/** Signed in, or sent to the sign-in page; without ADMIN_TOKEN the console cannot be used at all. */
const requireSession = createMiddleware<ConsoleEnv>(async (c, next) => {
  const token = settingsOf(c.env).adminToken;
  if (token === undefined) return c.html(<SignInPage failed={false} unavailable />, 503);
  if (!(await hasSession(c, token, Date.now()))) return c.redirect("/console/sign-in", 303);
  c.set("admin", new AdminClient(adminApp, c.env, c.executionCtx, token));
  await next();
});

function chatIdOf(c: Context<ConsoleEnv>): number | undefined {
  const text = c.req.param("chatId") ?? "";
  const chatId = Number(text);
  return CHAT_ID.test(text) && Number.isSafeInteger(chatId) ? chatId : undefined;
}

/** Pages only some deployments have (the playground in local dev). */
function extraPages(c: { env: Env }): { path: string; label: string }[] {
  const playground = WITH_PLAYGROUND && settingsOf(c.env).playgroundUrl !== undefined;
  return playground ? [{ path: "/console/playground", label: "Playground" }] : [];
}

async function accessPage(c: Context<ConsoleEnv>, notice: { text: string; bad: boolean } | undefined) {
  const access = expect(await c.var.admin.get<AccessView>("/access"));
  return <AccessPage access={access} {...(notice ? { notice } : {})} extraPages={extraPages(c)} />;
}

/**
 * A chat's page, every part read through the admin API at once. The form shows `values` when given (a refused
 * edit, with its `errors`), else the stored config.
 */
async function chatPage(
  c: Context<ConsoleEnv>,
  chatId: number,
  form: Partial<Pick<Parameters<typeof ChatPage>[0], "values" | "errors" | "notice">> & { skills?: SkillForm },
) {
  const [config, chats, tasks, daily, report, skills, outbox, models] = await Promise.all([
    c.var.admin.get<ConfigView>(`/chats/${chatId}/config?effective=1`),
    c.var.admin.get<{ chats: ChatRow[] }>("/chats"),
    c.var.admin.get<{ tasks: TaskRow[] }>(`/chats/${chatId}/tasks`),
    c.var.admin.get<DailyUsage>(`/usage/daily?days=30&chatId=${chatId}`),
    c.var.admin.get<UsageReport>(`/usage?chatId=${chatId}`),
    c.var.admin.get<SkillsView>(`/chats/${chatId}/skills?full=1`),
    c.var.admin.get<OutboxView>(`/chats/${chatId}/outbox`),
    c.var.admin.get<{ choices: { provider: string; model: string }[] }>("/models"),
  ]);
  const view = expect(config);
  const row = expect(chats).chats.find((chat) => chat.chatId === chatId);
  return (
    <ChatPage
      chatId={chatId}
      title={row?.title ?? `Chat ${chatId}`}
      view={view}
      values={form.values ?? formValuesOf(view.config)}
      errors={form.errors ?? {}}
      {...(form.notice ? { notice: form.notice } : {})}
      tasks={expect(tasks).tasks}
      outbox={expect(outbox)}
      models={models.ok ? models.data.choices : []}
      skills={expect(skills)}
      {...(form.skills ? { skillForm: form.skills } : {})}
      daily={expect(daily)}
      report={expect(report)}
      now={Date.now()}
      extraPages={extraPages(c)}
    />
  );
}

/** A read the console cannot do without: its failure is a 500 for the page, logged by the app's error handler. */
function expect<T>(result: { ok: true; data: T } | { ok: false; status: number; error: { message: string } }): T {
  if (!result.ok) throw new Error(`admin API answered ${result.status}: ${result.error.message}`);
  return result.data;
}

/** The settings fields whose text differs from what is in force through the console (empty: back to the default). */
function changedSettings(current: SettingsReport, form: Record<string, unknown>): Record<string, string> {
  const changed: Record<string, string> = {};
  for (const knob of current.settings) {
    if (knob.kind !== "setting" || knob.source === "variable") continue;
    const typed = form[knob.name];
    if (typeof typed !== "string") continue;
    const text = typed.trim();
    if (text !== (knob.value ?? "")) changed[knob.name] = text;
  }
  return changed;
}
