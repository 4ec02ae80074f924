import * as z from "zod";

const chatSchema = z.object({
  chatId: z.number().int(),
  type: z.enum(["private", "group", "supergroup"]),
  name: z.string(),
  fromId: z.number().int(),
  threadId: z.number().int().optional(),
});

const chatNames = z.enum(["owner", "friend", "group", "topic"]);
export type ChatName = z.infer<typeof chatNames>;

/**
 * What a fixture holds, written by the recorder (scripts/upgrade-fixtures/record.ts) beside the storage it recorded:
 * the chats and settings of the bot, and what its old release stored and reported. The upgrade test checks the
 * current code against it, so a fixture stays true to the release that made it.
 */
export const manifestSchema = z.object({
  release: z.string(),
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  recordedAt: z.string(),
  /** The variables the bot ran with, besides the fakes' URLs, the keys and the webhook secret (bench/bot.ts). */
  vars: z.record(z.string(), z.string()),
  /** The highest update id the fixture's chats have seen: later updates must not repeat one. */
  lastUpdateId: z.number().int(),
  chats: z.record(chatNames, chatSchema),
  /** Per chat, texts of its stored conversation (user, assistant, tool calls and results) its next turn must show. */
  conversations: z.record(chatNames, z.array(z.string())),
  /** The model each chat's config names (the owner's is DEFAULT_MODEL), by provider. */
  models: z.record(chatNames, z.object({ provider: z.enum(["openai", "anthropic"]), model: z.string() })),
  /** The configs PUT through the admin API, by chat id. */
  configs: z.record(z.string(), z.record(z.string(), z.unknown())),
  /** Facts the owner's model stored with `remember`. */
  memories: z.array(z.string()),
  /** Words search_history is asked for in the owner's chat, and a text of the old message it must find. */
  searchable: z.object({ query: z.string(), finds: z.string() }),
  /** Text of the group's summary. */
  summary: z.string(),
  /** The owner's live tasks' prompts (a one-shot far ahead, a recurring one). */
  tasks: z.array(z.string()),
  /** A one-shot task of the friend's, due minutes after the recording ended: it runs when the upgrade starts. */
  dueTask: z.object({ chat: chatNames, prompt: z.string() }),
  /** The answer Telegram could not take: it waits in the chat's outbox. */
  waiting: z.object({ chat: chatNames, text: z.string() }),
  /** A message whose turn was cut by the shutdown (its model call never answered): answered after the upgrade. */
  inFlight: z.object({ chat: chatNames, text: z.string() }),
  skills: z.object({
    bot: z.array(z.string()),
    chat: z.object({ chat: chatNames, names: z.array(z.string()), alwaysText: z.string() }),
  }),
  /** GET /admin/usage's per-chat sums when the recording ended (what was flushed to D1 by then). */
  usage: z.array(z.object({ chatId: z.number(), turns: z.number(), inputTokens: z.number() })),
  /** GET /admin/access: chats approved by pairing, admins stored by it. */
  access: z.object({ chats: z.array(z.number()), admins: z.array(z.number()) }),
});

export type Manifest = z.infer<typeof manifestSchema>;
