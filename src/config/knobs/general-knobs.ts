import { custom, readingOf, textWithDefault } from "../knob.ts";
import { isTimezone } from "../zones.ts";

const group = "General";

export const GENERAL_KNOBS = {
  BOT_NAME: textWithDefault({ group, description: "the assistant's name in its system prompt" }, "Assistant", 100),
  DEFAULT_TIMEZONE: custom(
    {
      group,
      description: "IANA time zone for the system prompt's clock, `/status`'s \"today\" and tasks without a zone",
    },
    {
      rule: "an IANA time zone such as Europe/Berlin",
      fallback: "UTC",
      shownDefault: "UTC",
      read: (value) =>
        isTimezone(value)
          ? readingOf(value)
          : { ok: false, problem: "must be an IANA time zone such as Europe/Berlin" },
    },
  ),
} as const;
