import { choice, integer } from "../knob.ts";
import { RICH_MODES } from "../rich-modes.ts";

const group = "Answers in Telegram";

export const REPLY_KNOBS = {
  STREAM_DRAFT_INTERVAL_MS: integer(
    { group, description: "private chats: how often a streamed answer's draft is updated" },
    { min: 300, max: 10_000, fallback: 400 },
  ),
  STREAM_EDIT_INTERVAL_MS: integer(
    {
      group,
      description:
        "groups and topics: how often the streamed answer's message is edited (Telegram allows about 20 messages a minute per group, edits included)",
    },
    { min: 1_000, max: 60_000, fallback: 3_000 },
  ),
  STOP_BUTTON_AFTER_SECONDS: integer(
    {
      group,
      description:
        'a turn still running after this long shows a Stop button (a rich draft that shows nothing yet: "Working…" and its stop control)',
    },
    { min: 0, max: 600, fallback: 3 },
  ),
  ACK_REACTION: choice(
    { group, description: "where a 👀 reaction acknowledges a message whose answer takes more than a moment" },
    ["private", "all", "off"],
    "private",
  ),
  RICH_MESSAGES: choice(
    {
      group,
      description:
        "when an answer is a rich message (Bot API 10.1: tables, headings, task lists, math, details; ~30,000 characters a message): `auto` when it has such structure or is over 4,096 characters, `always`, or `off` (Telegram HTML, split at 4,096); a chat's `richMessages` overrides it, and a chat whose Bot API refuses them falls back",
    },
    RICH_MODES,
    "auto",
  ),
  OUTBOX_MAX_HOURS: integer(
    {
      group,
      description:
        'how long an answer Telegram could not take (5xx, timeouts, long 429s) waits in its chat\'s outbox, retried with backoff in order, before it is given up (see "When Telegram is down")',
    },
    { min: 1, max: 168, fallback: 24 },
  ),
} as const;
