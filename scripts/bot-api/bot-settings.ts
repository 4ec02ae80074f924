import { badRequest, type Refusal } from "./refusal.ts";

/**
 * The bot's own settings (Bot API 10.5): changed with setMySettings ("settings that aren't specified remain
 * unchanged"), reported by getMe as a BotFullInfo, which took the bot-only fields out of User. A new bot's settings
 * are the defaults below (what @BotFather gives a new bot: it can join groups, privacy mode on, no inline mode, no
 * guest mode, no topics). `has_topic_sidebar` takes effect only while topics are on: getMe keeps reporting false
 * otherwise (node-telegram-bot-api's 10.5 notes; Telegram's docs do not say).
 */
export interface BotIdentity {
  id: number;
  is_bot: true;
  first_name: string;
  username: string;
}

const FLAGS = [
  "can_join_groups",
  "can_read_all_group_messages",
  "supports_inline_queries",
  "can_connect_to_business",
  "has_main_web_app",
  "has_topics_enabled",
  "allows_users_to_create_topics",
  "can_manage_bots",
  "supports_guest_queries",
  "supports_join_request_queries",
  "needs_inline_query_location",
  "has_topic_sidebar",
  "can_communicate_with_bots",
] as const;
type Flag = (typeof FLAGS)[number];

/** setMySettings' callback_query_mode: TDLib's BotCallbackQueryMode (default, auto, inline). */
const CALLBACK_QUERY_MODES = ["default", "auto", "inline"] as const;
export type CallbackQueryMode = (typeof CALLBACK_QUERY_MODES)[number];

/** The fake's own words: Telegram's for an unknown mode are not documented. */
const MODE_INVALID = badRequest("CALLBACK_QUERY_MODE_INVALID");

const DEFAULTS: Record<Flag, boolean> = {
  can_join_groups: true,
  can_read_all_group_messages: false,
  supports_inline_queries: false,
  can_connect_to_business: false,
  has_main_web_app: false,
  has_topics_enabled: false,
  allows_users_to_create_topics: false,
  can_manage_bots: false,
  supports_guest_queries: false,
  supports_join_request_queries: false,
  needs_inline_query_location: false,
  has_topic_sidebar: false,
  can_communicate_with_bots: false,
};

export class BotSettings {
  private flags: Record<Flag, boolean> = { ...DEFAULTS };
  private placeholder = "";
  callbackQueryMode: CallbackQueryMode = "default";

  /** setMySettings: the given settings changed, the others kept; or Telegram's refusal and nothing changed. */
  apply(params: Record<string, unknown>): Refusal | undefined {
    const mode = params.callback_query_mode;
    if (mode !== undefined && !CALLBACK_QUERY_MODES.includes(mode as CallbackQueryMode)) return MODE_INVALID;
    for (const flag of FLAGS) if (params[flag] !== undefined) this.flags[flag] = params[flag] === true;
    if (params.inline_query_placeholder !== undefined) this.placeholder = String(params.inline_query_placeholder);
    // inline_feedback_share_denominator is taken and not reported (BotFullInfo has no field for it).
    if (mode !== undefined) this.callbackQueryMode = mode as CallbackQueryMode;
    return undefined;
  }

  /** getMe's BotFullInfo: who the bot is and how it is set up. */
  fullInfo(bot: BotIdentity): Record<string, unknown> {
    const { can_communicate_with_bots: _notReported, ...reported } = this.flags;
    return {
      ...bot,
      ...reported,
      has_topic_sidebar: this.flags.has_topics_enabled && this.flags.has_topic_sidebar,
      active_usernames: [bot.username],
      ...(this.placeholder !== "" ? { inline_query_placeholder: this.placeholder } : {}),
    };
  }

  reset(): void {
    this.flags = { ...DEFAULTS };
    this.placeholder = "";
    this.callbackQueryMode = "default";
  }
}
