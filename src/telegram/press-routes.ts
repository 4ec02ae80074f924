import * as z from "zod";

/**
 * Which chat a press belongs to when Telegram does not say (Bot API 10.5: with `callback_query_mode`, a press on the
 * bot's own message may come with `inline_message_id` and no `message`). Every press carries `chat_instance`, Telegram's
 * id of the chat the message is in; a press that names its chat teaches it here (in KV, written once per chat),
 * and a press that does not is routed by it. A forum's topics share their chat's instance: such a press reaches the
 * chat's own object, not a topic's.
 */
const routeSchema = z.object({ chatId: z.number().int(), type: z.enum(["private", "group", "supergroup"]) });
export type PressRoute = z.infer<typeof routeSchema>;

const KV_TTL_SECONDS = 90 * 24 * 60 * 60;
const keyOf = (chatInstance: string) => `telegram:press-route:${chatInstance}`;

/** Per isolate: the routes it learnt or read, so a chat's presses cost one KV write (or read) per isolate. */
const known = new Map<string, PressRoute>();

/**
 * Remembers the chat a `chat_instance` belongs to: a KV read per chat and isolate, and a write only when KV does not
 * have it yet (writes are the scarce kind on Workers Free).
 */
export async function learnPressRoute(kv: KVNamespace, chatInstance: string, route: PressRoute): Promise<void> {
  if (known.get(chatInstance)?.chatId === route.chatId) return;
  if ((await pressRouteOf(kv, chatInstance))?.chatId === route.chatId) return;
  known.set(chatInstance, route);
  await kv.put(keyOf(chatInstance), JSON.stringify(route), { expirationTtl: KV_TTL_SECONDS });
}

/** The chat a `chat_instance` was seen in, or undefined when no press from it named its chat yet. */
export async function pressRouteOf(kv: KVNamespace, chatInstance: string): Promise<PressRoute | undefined> {
  const seen = known.get(chatInstance);
  if (seen) return seen;
  const stored = routeSchema.safeParse(await kv.get(keyOf(chatInstance), "json").catch(() => null));
  if (!stored.success) return undefined;
  known.set(chatInstance, stored.data);
  return stored.data;
}

/** Tests: KV is wiped between tests, so what was read from it is forgotten too. */
export function forgetPressRoutes(): void {
  known.clear();
}
