/**
 * The bot an upgrade fixture was recorded with, and the one the upgrade test runs on it: the same chats and the same
 * settings, as a deployment keeps its variables across a redeploy. Only the code changes.
 */

/** A chat as the fixture's updates name it. */
export interface FixtureChat {
  chatId: number;
  type: "private" | "group" | "supergroup";
  /** A group's title, or a person's first name. */
  name: string;
  /** The user who writes there. */
  fromId: number;
  /** A forum topic: the chat's object is the topic's. */
  threadId?: number;
}

/** The owner: a private chat that became the bot's admin with the setup code (access record in KV). */
export const OWNER: FixtureChat = { chatId: 1001, type: "private", name: "Ada", fromId: 1001 };
/** A friend's private chat, let in by pairing (`/pair`, then the owner's `/approve`). */
export const FRIEND: FixtureChat = { chatId: 1002, type: "private", name: "Bob", fromId: 1002 };
/** A group in ALLOWED_CHAT_IDS, on Anthropic by its config, with a summary. */
export const GROUP: FixtureChat = { chatId: -2001, type: "group", name: "Smith family", fromId: 1001 };
/** A topic of a forum supergroup in ALLOWED_CHAT_IDS, on its own OpenAI model by its config. */
export const TOPIC: FixtureChat = {
  chatId: -3001,
  type: "supergroup",
  name: "Trip planning",
  fromId: 1001,
  threadId: 7,
};

/**
 * The variables both runs give `wrangler dev` (startBot adds the fakes' URLs, the keys and the webhook secret).
 * HISTORY_LIMIT is low so that a dozen group messages make a summary, and high enough that the owner's whole
 * conversation stays in the window; usage is flushed to D1 every 2 s so that the fixture has flushed rows and,
 * from its last turns, buffered ones.
 */
export const FIXTURE_VARS: Record<string, string> = {
  TELEGRAM_BOT_TOKEN: "123456:UPGRADE",
  ADMIN_TOKEN: "upgrade-admin-token-0123456789abcdef",
  ALLOWED_CHAT_IDS: `${GROUP.chatId},${TOPIC.chatId}`,
  ADMIN_USER_IDS: "",
  ADMIN_CHAT_IDS: "",
  DEFAULT_PROVIDER: "openai",
  DEFAULT_MODEL: "gpt-4o-upgrade",
  HISTORY_LIMIT: "20",
  USAGE_FLUSH_SECONDS: "2",
  RICH_MESSAGES: "auto",
};
