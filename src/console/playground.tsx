import type { Context } from "hono";
import { Hono } from "hono/tiny";
import { settingsOf } from "../config/loaded-settings.ts";
import type { Env } from "../env.ts";
import { WIDGET_LIMITS } from "../widgets/widget-rules.ts";
import { PlaygroundPage } from "./pages/playground.tsx";
import { PLAYGROUND_SCRIPT } from "./playground-script.ts";
import { WIDGET_FRAME_POLICY, widgetFrameDocument } from "./widget-frame.ts";

type PlaygroundEnv = { Bindings: Env };

/** The most a typed message or a button press may be: Telegram's own limit, with room for JSON. */
const MAX_BODY_BYTES = 16 * 1024;

/**
 * `/console/playground` (behind the console's session): the chat page, its script, its calls (read the chat, type,
 * press a button, tap a widget, press a draft's stop control, switch rich messages off and on), the audio of its voice
 * messages and its widgets' sandboxed frames,
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

  // A widget's document for its sandboxed frame, with a policy of its own (see widget-frame.ts).
  app.get("/frame/:chat/:id", async (c) => {
    const chat = c.req.param("chat");
    const id = c.req.param("id");
    if (!/^-?\d{1,16}$/.test(chat) || !/^\d{1,9}$/.test(id)) return c.json({ error: "no such widget" }, 404);
    const base = settingsOf(c.env).playgroundUrl!;
    let widget: { html?: unknown; chatData?: unknown };
    try {
      const response = await fetch(`${base}/playground/frame?chat=${chat}&id=${id}`);
      if (!response.ok) return c.json({ error: "no such widget" }, 404);
      widget = await response.json();
    } catch {
      return c.json({ error: `the Bot API stand-in at ${base} cannot be reached` }, 502);
    }
    if (typeof widget.html !== "string" || new TextEncoder().encode(widget.html).length > WIDGET_LIMITS.htmlBytes) {
      return c.json({ error: "not a widget Telegram would show" }, 422);
    }
    return c.body(widgetFrameDocument(widget.html, typeof widget.chatData === "string" ? widget.chatData : ""), 200, {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": WIDGET_FRAME_POLICY,
      "x-frame-options": "SAMEORIGIN",
      "cache-control": "no-store",
    });
  });

  app.post("/:action{send|press|stop|telegram|widget}", async (c) => {
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
