import { type IdList, idListOf } from "../id-list.ts";
import { choice, custom, secret, url } from "../knob.ts";

const group = "Telegram and access";

/** Chat or user ids, comma-separated; `*` (everyone) only where `everyoneAllowed`. */
function idList(description: string, everyoneAllowed: boolean) {
  return custom<IdList>(
    { kind: "variable", group, description },
    {
      rule: everyoneAllowed ? "comma-separated chat ids, or *" : "comma-separated ids (never *)",
      fallback: { kind: "some", ids: new Set() },
      read: (text) => idListOf(text, everyoneAllowed),
    },
  );
}

export const ACCESS_KNOBS = {
  TELEGRAM_BOT_TOKEN: secret({ group, description: "the bot's token from @BotFather" }),
  TELEGRAM_WEBHOOK_SECRET: secret({
    group,
    description:
      "must equal the `X-Telegram-Bot-Api-Secret-Token` header (compared in constant time); unset, the webhook refuses every call. `npm run deploy` makes one",
  }),
  ADMIN_TOKEN: secret({
    group,
    description:
      "bearer token of `/admin/*` and the console's sign-in, at least 32 characters; unset, those routes do not exist. `npm run deploy` makes one",
  }),
  TELEGRAM_API_BASE_URL: url(
    {
      kind: "variable",
      group,
      description: "Bot API root (a local Bot API server, or fakes); the bot token is sent there, so never a setting",
    },
    "https://api.telegram.org",
  ),
  ALLOWED_CHAT_IDS: idList(
    'chats that may talk to the bot besides those approved by pairing (KV); empty: only paired chats. Others get no model call and at most one reply an hour: "send /pair to ask for access"',
    true,
  ),
  ADMIN_USER_IDS: idList(
    "users who may use `/provider`, `/model`'s buttons, `/approve` and `/agent`, and (in an admin chat) act on other chats. The owner who paired with the setup code is an admin too",
    false,
  ),
  ADMIN_CHAT_IDS: idList(
    "chats where an admin's turn may act on other allowed chats (`send_message`/`schedule_task` with `chatId`)",
    false,
  ),
  GUEST_MODE: choice(
    {
      group,
      description:
        "who may summon the bot by name in chats it is not in (Telegram's guest mode): `known` (admins, and people whose private chat may talk to the bot, listed or paired), `admins`, or `off`",
    },
    ["off", "admins", "known"],
    "known",
  ),
} as const;
