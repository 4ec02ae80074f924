import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { Hono } from "hono/tiny";
import { AccessStore, isAdminIn, isChatAllowedAnywhere } from "../../access/access-store.ts";
import { ChatAccess } from "../../access/chat-access.ts";
import { includes } from "../../config/id-list.ts";
import { settingsOf } from "../../config/loaded-settings.ts";
import { chatStub } from "../../durable/chat-key.ts";
import type { Env } from "../../env.ts";
import { errorText } from "../../lib/errors.ts";
import { secretsEqual } from "../../protocol/http/bearer.ts";
import { HttpError } from "../../protocol/http/error.ts";
import { jsonBody } from "../../protocol/http/json-body.ts";
import { isAddressedToBot, withoutBotSuffix } from "../../telegram/access.ts";
import { botIdentity } from "../../telegram/bot-identity.ts";
import { TelegramClient } from "../../telegram/client.ts";
import { type PressAnswer, privately } from "../../telegram/press-answer.ts";
import { learnPressRoute, pressRouteOf } from "../../telegram/press-routes.ts";
import {
  type ButtonPress,
  buttonPressOf,
  type GenerationStop,
  generationStopOf,
  guestQueryOf,
  incomingMessageOf,
  inlinePressOf,
  type TelegramUpdate,
  updateSchema,
  type WidgetTap,
  widgetTapOf,
} from "../../telegram/update.ts";

const MAX_BODY_BYTES = 1_000_000;

type WebhookEnv = { Bindings: Env };

/** The secret header Telegram sends with every call once the webhook was set with a secret; checked before the body. */
const requireTelegramSecret = createMiddleware<WebhookEnv>(async (c, next) => {
  const expected = settingsOf(c.env).webhookSecret;
  if (!expected) {
    throw new HttpError(503, {
      code: "webhook_not_configured",
      message: "TELEGRAM_WEBHOOK_SECRET is not set; the webhook refuses every call.",
    });
  }
  const presented = c.req.header("x-telegram-bot-api-secret-token");
  if (presented === undefined || !(await secretsEqual(presented, expected))) {
    throw new HttpError(401, { code: "unauthorized", message: "Missing or wrong X-Telegram-Bot-Api-Secret-Token." });
  }
  await next();
});

/**
 * `POST /telegram/webhook`: checks the secret header, validates the update, applies the access rules and queues the
 * message in its chat's object. Answers as soon as the update is durably queued; no model call happens here.
 */
export function webhookRoutes(): Hono<WebhookEnv> {
  return new Hono<WebhookEnv>().post(
    "/",
    requireTelegramSecret,
    jsonBody(updateSchema, {
      maxBytes: MAX_BODY_BYTES,
      invalidCode: "invalid_update",
      invalidMessage: "Not a Telegram update",
    }),
    async (c) => {
      const update = c.req.valid("json");
      const press = buttonPressOf(update) ?? (await routedInlinePress(c, update));
      if (press) return answerButton(c, press);
      if (update.callback_query) return answerUnroutedPress(c, update.callback_query.id);
      if (update.guest_message) return routeGuestQuery(c, update);
      if (update.widget_query) return answerWidgetTap(c, widgetTapOf(update), update.widget_query.id);
      const stop = generationStopOf(update);
      if (stop) return stopGeneration(c, stop);
      let message = incomingMessageOf(update);
      if (!message || !update.message) return answered({ ok: true, ignored: "update kind not handled" });

      if (message.chat.type !== "private") {
        const settings = settingsOf(c.env);
        const identity = await botIdentity(settings.botToken ?? "", telegramFor(c.env), c.env.CONFIG);
        if (!isAddressedToBot(message, update.message, identity)) {
          return answered({ ok: true, ignored: "not addressed to the bot" });
        }
      }
      message = withoutBotSuffix(message);
      // ALLOWED_CHAT_IDS costs nothing; any other chat costs one KV read, cached in the isolate for 30 s.
      const access = (await isChatAllowedAnywhere(settingsOf(c.env), c.env.CONFIG, message.chat.id))
        ? "allowed"
        : "stranger";
      const target = {
        chatId: message.chat.id,
        ...(message.threadId !== undefined ? { threadId: message.threadId } : {}),
      };
      const result = await chatStub(c.env, target).enqueue(message, access);
      return answered({ ok: true, result });
    },
  );
}

/**
 * A button press goes to its chat's object, which decides (e.g. Stop: only the person who asked, or an admin); the
 * answer to the press is sent after the 200, so Telegram's spinner stops without holding up the webhook.
 */
async function answerButton(c: Context<WebhookEnv>, press: ButtonPress): Promise<Response> {
  const settings = settingsOf(c.env);
  if (press.chatInstance !== undefined && press.message.kind === "message") {
    // Alongside the answer: a later press from this chat without `message` finds its way by it.
    const route = { chatId: press.chat.id, type: press.chat.type };
    c.executionCtx.waitUntil(
      learnPressRoute(c.env.CONFIG, press.chatInstance, route).catch((error: unknown) =>
        console.warn("remembering a chat's press route failed", errorText(error)),
      ),
    );
  }
  const target =
    press.threadId === undefined ? { chatId: press.chat.id } : { chatId: press.chat.id, threadId: press.threadId };
  let answer = privately("This bot is private.");
  if (await isChatAllowedAnywhere(settings, c.env.CONFIG, press.chat.id)) {
    const byAdmin =
      includes(settings.adminUserIds, press.userId) ||
      isAdminIn(settings, await new AccessStore(c.env.CONFIG).read(), press.userId);
    answer = await chatStub(c.env, target).pressButton(press, byAdmin);
  }
  c.executionCtx.waitUntil(tellPresser(telegramFor(c.env), press.queryId, answer));
  return answered({ ok: true, result: "answered" });
}

/**
 * A press without `message` (Bot API 10.5's callback_query_mode): the chat its `chat_instance` was seen in, as a
 * press on the message Telegram names by its inline id; undefined when no press from that chat named it yet.
 */
async function routedInlinePress(c: Context<WebhookEnv>, update: TelegramUpdate): Promise<ButtonPress | undefined> {
  const inline = inlinePressOf(update);
  if (!inline?.chatInstance) return undefined;
  const route = await pressRouteOf(c.env.CONFIG, inline.chatInstance);
  if (!route) return undefined;
  return {
    queryId: inline.queryId,
    userId: inline.userId,
    userName: inline.userName,
    chat: { id: route.chatId, type: route.type },
    message: { kind: "inline", inlineMessageId: inline.inlineMessageId },
    chatInstance: inline.chatInstance,
    data: inline.data,
  };
}

/** A press the bot cannot place (no message, a chat not seen yet, no data): answered, never left spinning. */
function answerUnroutedPress(c: Context<WebhookEnv>, queryId: string): Response {
  c.executionCtx.waitUntil(
    tellPresser(telegramFor(c.env), queryId, privately("That button is not known any more. Send your request again.")),
  );
  return answered({ ok: true, result: "answered" });
}

/**
 * Tells the presser: a notice, or a private answer as an ephemeral reply to the press (Bot API 10.4) with the press
 * then answered without words; where Telegram refuses the ephemeral reply (an older server, a press too old), the
 * notice carries the words instead. Never throws.
 */
async function tellPresser(telegram: TelegramClient, queryId: string, answer: PressAnswer): Promise<void> {
  try {
    if (answer.kind === "private") {
      const replied = await telegram.replyPrivately(queryId, answer.text).then(
        () => true,
        (error: unknown) => {
          console.warn("an ephemeral reply to a button press was refused", errorText(error));
          return false;
        },
      );
      await telegram.answerCallback(queryId, replied ? undefined : answer.text);
      return;
    }
    await telegram.answerCallback(queryId, answer.text);
  } catch (error) {
    console.warn("answering a button press failed", errorText(error));
  }
}

/**
 * A tap in one of the bot's widgets (Bot API 10.4) goes to its chat's object, which answers from the widget's stored
 * state; the answer goes to Telegram after the 200, well within its 15 seconds. A tap the bot cannot place, or from a
 * chat it does not serve, gets an empty answer (the widget stays as it is).
 */
async function answerWidgetTap(c: Context<WebhookEnv>, tap: WidgetTap | undefined, queryId: string): Promise<Response> {
  let answer = "";
  if (tap && (await isChatAllowedAnywhere(settingsOf(c.env), c.env.CONFIG, tap.chatId))) {
    answer = await chatStub(c.env, { chatId: tap.chatId }).widgetQuery(tap);
  }
  c.executionCtx.waitUntil(
    telegramFor(c.env)
      .answerWidgetQuery(queryId, answer)
      .catch((error: unknown) => console.warn("answering a widget query failed", errorText(error))),
  );
  return answered({ ok: true, result: "answered" });
}

/**
 * A guest query (the bot summoned in a chat it is not in) goes to its summoner's own chat object, which answers it
 * with that chat's settings and budget, if GUEST_MODE lets that person summon the bot. Anyone else gets nothing, not
 * even a refusal: an answer would be posted into a chat of people the bot does not know, for everyone there to read,
 * and would tell them the bot exists and can be summoned; silence is what an unknown inline bot gives too.
 */
async function routeGuestQuery(c: Context<WebhookEnv>, update: TelegramUpdate): Promise<Response> {
  const settings = settingsOf(c.env);
  if (settings.guestMode === "off") return answered({ ok: true, ignored: "guest mode is off" });
  const from = update.guest_message?.from;
  const access = new ChatAccess(settings, await new AccessStore(c.env.CONFIG).read());
  if (!from || !access.maySummon(from.id)) {
    return answered({ ok: true, ignored: "guest query from someone the bot does not know" });
  }
  const identity = await botIdentity(settings.botToken ?? "", telegramFor(c.env), c.env.CONFIG);
  const query = guestQueryOf(update, identity.username);
  if (!query) return answered({ ok: true, ignored: "guest query without a person" });
  const result = await chatStub(c.env, { chatId: query.from.id }).enqueueGuest(query);
  return answered({ ok: true, result });
}

/**
 * A press of a rich draft's stop control: the chat's object stops the turn whose draft it was, as /stop and the Stop
 * button do (for the person who asked, or an admin). Telegram wants no answer to it.
 */
async function stopGeneration(c: Context<WebhookEnv>, stop: GenerationStop): Promise<Response> {
  const settings = settingsOf(c.env);
  if (!(await isChatAllowedAnywhere(settings, c.env.CONFIG, stop.chatId))) {
    return answered({ ok: true, ignored: "chat not allowed" });
  }
  const byAdmin =
    includes(settings.adminUserIds, stop.userId) ||
    isAdminIn(settings, await new AccessStore(c.env.CONFIG).read(), stop.userId);
  const target =
    stop.threadId === undefined ? { chatId: stop.chatId } : { chatId: stop.chatId, threadId: stop.threadId };
  const result = await chatStub(c.env, target).stopGeneration(stop, byAdmin);
  return answered({ ok: true, result });
}

/**
 * What the webhook tells Telegram (which reads only the status), for whoever looks at it: the runtime's own
 * `Response.json`, as hono's `c.json` prepares headers of its own first (a fiftieth of a plain turn's CPU here).
 */
function answered(body: { ok: true; result: string } | { ok: true; ignored: string }): Response {
  return Response.json(body);
}

const clients = new WeakMap<Env, TelegramClient>();

function telegramFor(env: Env): TelegramClient {
  let client = clients.get(env);
  if (!client) {
    const settings = settingsOf(env);
    if (!settings.botToken)
      throw new HttpError(503, { code: "bot_token_missing", message: "TELEGRAM_BOT_TOKEN is not set." });
    client = new TelegramClient({ botToken: settings.botToken, apiBaseUrl: settings.telegramApiBaseUrl });
    clients.set(env, client);
  }
  return client;
}
