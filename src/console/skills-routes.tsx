import type { Context, Hono } from "hono";
import type { Env } from "../env.ts";
import { type AdminClient, fieldProblems, type SkillsView } from "./admin-client.ts";
import { type SkillForm, SkillsPage } from "./pages/skills.tsx";

type ConsoleEnv = { Bindings: Env; Variables: { admin: AdminClient } };
type ChatPageRenderer = (
  c: Context<ConsoleEnv>,
  chatId: number,
  form: { skills?: SkillForm; notice?: { text: string; bad: boolean } },
) => Promise<ReturnType<typeof SkillsPage>>;

const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const CHAT_ID = /^-?\d{1,16}$/;

/** What a done skill action says on the page it lands on. */
export const SKILL_NOTICES: Record<string, string> = {
  "skill-saved": "Skill saved. The chat uses it from its next message.",
  "skill-enable": "Skill switched on.",
  "skill-disable": "Skill switched off.",
  "skill-delete": "Skill deleted.",
};

/**
 * The console's skills: the bot's on their own page, a chat's as a section of its page. Each form is one admin API
 * call (upload: POST, edit: PUT, switch: PATCH, delete: DELETE); a refused one shows the page again with what was
 * typed and the API's problems next to it.
 */
export function addSkillRoutes(
  app: Hono<ConsoleEnv>,
  pages: { chatPage: ChatPageRenderer; extraPages: (c: { env: Env }) => { path: string; label: string }[] },
): void {
  const botPage = async (c: Context<ConsoleEnv>, form: SkillForm | undefined, status: 200 | 400 | 404 | 409) => {
    const view = await c.var.admin.get<SkillsView>("/skills?full=1");
    if (!view.ok) throw new Error(`admin API answered ${view.status}: ${view.error.message}`);
    const done = SKILL_NOTICES[c.req.query("done") ?? ""];
    const notice = form
      ? { text: "Not saved: see the problems below.", bad: true }
      : done
        ? { text: done, bad: false }
        : undefined;
    return c.html(
      <SkillsPage
        view={view.data}
        {...(form ? { form } : {})}
        {...(notice ? { notice } : {})}
        extraPages={pages.extraPages(c)}
      />,
      status,
    );
  };

  /** Where a scope's forms go, and how a refusal is shown. */
  const scopes = [
    {
      route: "/skills",
      api: () => "/skills",
      done: (_c: Context<ConsoleEnv>, action: string) => `/console/skills?done=skill-${action}`,
      refused: (c: Context<ConsoleEnv>, form: SkillForm, status: 400 | 404 | 409) => botPage(c, form, status),
    },
    {
      route: "/chats/:chatId/skills",
      api: (c: Context<ConsoleEnv>) => `/chats/${c.req.param("chatId")}/skills`,
      done: (c: Context<ConsoleEnv>, action: string) =>
        `/console/chats/${c.req.param("chatId")}?done=skill-${action}#skills`,
      refused: async (c: Context<ConsoleEnv>, form: SkillForm, status: 400 | 404 | 409) =>
        c.html(
          await pages.chatPage(c, Number(c.req.param("chatId")), {
            skills: form,
            notice: { text: "Not saved: see the problems in Skills below.", bad: true },
          }),
          status,
        ),
    },
  ];

  app.get("/skills", (c) => botPage(c, undefined, 200));

  for (const scope of scopes) {
    const valid = (c: Context<ConsoleEnv>) =>
      (c.req.param("chatId") === undefined || CHAT_ID.test(c.req.param("chatId") ?? "")) &&
      (c.req.param("name") === undefined || SKILL_NAME.test(c.req.param("name") ?? ""));

    app.post(scope.route, async (c) => {
      if (!valid(c)) return c.notFound();
      const markdown = await markdownOf(c);
      const result = await c.var.admin.call("POST", scope.api(c), { markdown });
      if (result.ok) return c.redirect(scope.done(c, "saved"), 303);
      return scope.refused(c, { markdown, problems: problemsOf(result.error) }, statusOf(result.status));
    });

    app.post(`${scope.route}/:name`, async (c) => {
      if (!valid(c)) return c.notFound();
      const name = c.req.param("name");
      const markdown = await markdownOf(c);
      const result = await c.var.admin.call("PUT", `${scope.api(c)}/${name}`, { markdown });
      if (result.ok) return c.redirect(scope.done(c, "saved"), 303);
      return scope.refused(c, { name, markdown, problems: problemsOf(result.error) }, statusOf(result.status));
    });

    app.post(`${scope.route}/:name/:action{enable|disable|delete}`, async (c) => {
      if (!valid(c)) return c.notFound();
      const name = c.req.param("name");
      const action = c.req.param("action");
      const path = `${scope.api(c)}/${name}`;
      const result =
        action === "delete"
          ? await c.var.admin.call("DELETE", path)
          : await c.var.admin.call("PATCH", path, { enabled: action === "enable" });
      if (result.ok) return c.redirect(scope.done(c, action), 303);
      return scope.refused(c, { name, markdown: "", problems: problemsOf(result.error) }, statusOf(result.status));
    });
  }
}

async function markdownOf(c: Context<ConsoleEnv>): Promise<string> {
  const form = await c.req.parseBody();
  return typeof form.markdown === "string" ? form.markdown : "";
}

function problemsOf(error: { message: string; details?: unknown }): { field: string; problem: string }[] {
  const details = fieldProblems({ error: "", message: error.message, details: error.details });
  return details.length > 0 ? details : [{ field: "markdown", problem: error.message }];
}

function statusOf(status: number): 400 | 404 | 409 {
  return status === 404 || status === 409 ? status : 400;
}
