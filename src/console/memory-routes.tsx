import type { Context, Hono } from "hono";
import type { Env } from "../env.ts";
import type { AdminClient, AdminResult, MemoryRow, PersonRow } from "./admin-client.ts";
import { ChatMemoriesPage, PeoplePage, PersonPage } from "./pages/memories.tsx";

type ConsoleEnv = { Bindings: Env; Variables: { admin: AdminClient } };
type ExtraPages = (c: { env: Env }) => { path: string; label: string }[];

const USER_ID = /^\d{1,16}$/;
const CHAT_ID = /^-?\d{1,16}$/;
const MEMORY_ID = /^\d{1,12}$/;
const NOTICES: Record<string, string> = {
  forgot: "Forgotten.",
  deleted: "Deleted everything kept about that person.",
};

/**
 * The console's memory pages: people (`/console/people`, each person's facts with forget, an export download and a
 * delete of all of it) and each chat's facts (`/console/chats/:chatId/memories`). Every action is one admin API call.
 */
export function addMemoryRoutes(app: Hono<ConsoleEnv>, extraPages: ExtraPages): void {
  app.get("/people", async (c) => {
    const people = expectData(await c.var.admin.get<{ people: PersonRow[] }>("/people")).people;
    const notice = NOTICES[c.req.query("done") ?? ""];
    return c.html(<PeoplePage people={people} {...(notice ? { notice } : {})} extraPages={extraPages(c)} />);
  });

  app.get("/people/:userId", async (c) => {
    const userId = idOf(c, "userId", USER_ID);
    if (userId === undefined) return c.notFound();
    return c.html(await personPage(c, userId, extraPages, noticeOf(c)));
  });

  app.get("/people/:userId/export", async (c) => {
    const userId = idOf(c, "userId", USER_ID);
    if (userId === undefined) return c.notFound();
    const data = expectData(await c.var.admin.get<object>(`/people/${userId}/export`));
    c.header("content-disposition", `attachment; filename="person-${userId}.json"`);
    return c.json(data);
  });

  app.post("/people/:userId/delete", async (c) => {
    const userId = idOf(c, "userId", USER_ID);
    if (userId === undefined) return c.notFound();
    const form = await c.req.parseBody();
    if (form.confirm !== String(userId)) {
      const notice = { text: "Not deleted: type the person's user id to confirm.", bad: true };
      return c.html(await personPage(c, userId, extraPages, notice), 400);
    }
    expectData(await c.var.admin.call("DELETE", `/people/${userId}`));
    return c.redirect("/console/people?done=deleted", 303);
  });

  app.post("/people/:userId/memories/:memoryId/forget", async (c) => {
    const userId = idOf(c, "userId", USER_ID);
    const memoryId = idOf(c, "memoryId", MEMORY_ID);
    if (userId === undefined || memoryId === undefined) return c.notFound();
    const result = await c.var.admin.call("DELETE", `/memories/${memoryId}`);
    if (result.ok) return c.redirect(`/console/people/${userId}?done=forgot`, 303);
    return c.html(await personPage(c, userId, extraPages, { text: result.error.message, bad: true }), 404);
  });

  app.get("/chats/:chatId/memories", async (c) => {
    const chatId = idOf(c, "chatId", CHAT_ID);
    if (chatId === undefined) return c.notFound();
    return c.html(await chatMemoriesPage(c, chatId, extraPages, noticeOf(c)));
  });

  app.post("/chats/:chatId/memories/:memoryId/forget", async (c) => {
    const chatId = idOf(c, "chatId", CHAT_ID);
    const memoryId = idOf(c, "memoryId", MEMORY_ID);
    if (chatId === undefined || memoryId === undefined) return c.notFound();
    const result = await c.var.admin.call("DELETE", `/memories/${memoryId}`);
    if (result.ok) return c.redirect(`/console/chats/${chatId}/memories?done=forgot`, 303);
    return c.html(await chatMemoriesPage(c, chatId, extraPages, { text: result.error.message, bad: true }), 404);
  });
}

async function personPage(
  c: Context<ConsoleEnv>,
  userId: number,
  extraPages: ExtraPages,
  notice: { text: string; bad: boolean } | undefined,
) {
  const view = expectData(await c.var.admin.get<{ memories: MemoryRow[] }>(`/people/${userId}/memories`));
  return (
    <PersonPage userId={userId} memories={view.memories} {...(notice ? { notice } : {})} extraPages={extraPages(c)} />
  );
}

async function chatMemoriesPage(
  c: Context<ConsoleEnv>,
  chatId: number,
  extraPages: ExtraPages,
  notice: { text: string; bad: boolean } | undefined,
) {
  const view = expectData(await c.var.admin.get<{ memories: MemoryRow[] }>(`/chats/${chatId}/memories`));
  return (
    <ChatMemoriesPage
      chatId={chatId}
      memories={view.memories}
      {...(notice ? { notice } : {})}
      extraPages={extraPages(c)}
    />
  );
}

function idOf(c: Context<ConsoleEnv>, name: string, pattern: RegExp): number | undefined {
  const text = c.req.param(name) ?? "";
  const id = Number(text);
  return pattern.test(text) && Number.isSafeInteger(id) ? id : undefined;
}

function noticeOf(c: Context<ConsoleEnv>): { text: string; bad: boolean } | undefined {
  const text = NOTICES[c.req.query("done") ?? ""];
  return text === undefined ? undefined : { text, bad: false };
}

/** A read the page cannot do without: its failure is a 500, logged by the app's error handler. */
function expectData<T>(result: AdminResult<T>): T {
  if (!result.ok) throw new Error(`admin API answered ${result.status}: ${result.error.message}`);
  return result.data;
}
