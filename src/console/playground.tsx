import { type Context, Hono } from "hono";
import { settingsOf } from "../config/loaded-settings.ts";
import type { Env } from "../env.ts";
import { PlaygroundPage } from "./pages/playground.tsx";
import { PLAYGROUND_SCRIPT } from "./playground-script.ts";

type PlaygroundEnv = { Bindings: Env };

/** The most a typed message or a button press may be: Telegram's own limit, with room for JSON. */
const MAX_BODY_BYTES = 16 * 1024;

/**
 * `/console/playground` (behind the console's session): the chat page, its script, its calls (read the chat, type,
 * press a button, press a draft's stop control, switch rich messages off and on) and the audio of its voice messages,
 * passed on to the local Bot API stand-in `npm run dev` starts when no bot token is set (PLAYGROUND_URL). Without
 * PLAYGROUND_URL none of this exists (404).
 */
export function playgroundRoutes(
  extraPages: (c: { env: Env }) => { path: string; label: string }[],
): Hono<PlaygroundEnv> {
  const app = new Hono<PlaygroundEnv>();
  app.use("*", async (c, next) => {
    if (settingsOf(c.env).playgroundUrl === undefined) return c.notFound();
    await next();
  });

  app.get("/", (c) => c.html(<PlaygroundPage extraPages={extraPages(c)} />));
  app.get("/app.js", (c) => c.body(PLAYGROUND_SCRIPT, 200, { "content-type": "text/javascript; charset=utf-8" }));

  app.get("/state", (c) => {
    const since = c.req.query("since") ?? "-1";
    const chat = c.req.query("chat");
    if (!/^-?\d{1,12}$/.test(since) || (chat !== undefined && !/^-?\d{1,16}$/.test(chat))) {
      return c.json({ error: "since and chat must be numbers" }, 400);
    }
    return standIn(c, `state?since=${since}${chat === undefined ? "" : `&chat=${chat}`}`, { method: "GET" });
  });

  // A voice message's audio, for the page's <audio> element (media-src 'self').
  app.get("/voice/:id", async (c) => {
    const id = c.req.param("id");
    if (!/^(sent|note)-\d{1,9}$/.test(id)) return c.json({ error: "no such voice message" }, 404);
    const base = settingsOf(c.env).playgroundUrl!;
    try {
      const response = await fetch(`${base}/playground/voice?id=${id}`);
      return new Response(response.body, {
        status: response.status,
        headers: {
          "content-type": response.headers.get("content-type") ?? "application/octet-stream",
          "cache-control": "no-store",
        },
      });
    } catch {
      return c.json({ error: `the Bot API stand-in at ${base} cannot be reached` }, 502);
    }
  });

  app.post("/:action{send|press|stop|telegram}", async (c) => {
    const body = await c.req.text();
    if (body.length > MAX_BODY_BYTES) return c.json({ error: "too large" }, 413);
    return standIn(c, c.req.param("action"), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
  });
  return app;
}

async function standIn(c: Context<PlaygroundEnv>, path: string, init: RequestInit): Promise<Response> {
  const base = settingsOf(c.env).playgroundUrl!;
  try {
    const response = await fetch(`${base}/playground/${path}`, init);
    return new Response(response.body, {
      status: response.status,
      headers: { "content-type": "application/json", "cache-control": "no-store" },
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return c.json({ error: `the Bot API stand-in at ${base} cannot be reached: ${message}` }, 502);
  }
}
