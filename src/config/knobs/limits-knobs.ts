import { decimal, integer, optionalDecimal } from "../knob.ts";

const group = "Limits and prices";

export const LIMITS_KNOBS = {
  DAILY_TOKEN_BUDGET: optionalDecimal(
    {
      group,
      description:
        "tokens a chat may use per day (reset at midnight in the chat's time zone), for chats without their own `budget`; empty: no limit",
    },
    { max: 1e12 },
  ),
  DAILY_COST_BUDGET_USD: optionalDecimal(
    {
      group,
      description:
        "dollars a chat may spend per day, for chats without their own `budget`, priced by `MODEL_PRICES` and the prices below; empty: no limit",
    },
    { max: 1e6 },
  ),
  USAGE_FLUSH_SECONDS: integer(
    {
      group,
      description:
        "how long a chat may buffer usage records (and its row in the console's chat list) before writing them to D1 in one batch",
    },
    { min: 0, max: 3_600, fallback: 30 },
  ),
  IMAGE_PRICE_USD: decimal(
    { group, description: "what one generated image costs, for budgets and the usage record" },
    { max: 100, fallback: 0.04 },
  ),
  IMAGES_PER_TURN: integer(
    { group, description: "images one message may have generated (a chat's `limits.imagesPerTurn`)" },
    { min: 0, max: 100, fallback: 4 },
  ),
  IMAGES_PER_DAY: integer(
    { group, description: "images a chat may have generated per day (a chat's `limits.imagesPerDay`)" },
    { min: 0, max: 10_000, fallback: 20 },
  ),
  TRANSCRIPTION_PRICE_USD_PER_MINUTE: decimal(
    { group, description: "what a minute of transcribed audio costs; priced by the recording's length" },
    { max: 100, fallback: 0.003 },
  ),
  AUDIO_MINUTES_PER_TURN: integer(
    {
      group,
      description:
        "minutes of audio one message may have transcribed; a longer recording is not transcribed, and the chat is told (a chat's `limits.audioMinutesPerTurn`)",
    },
    { min: 0, max: 1_440, fallback: 10 },
  ),
  AUDIO_MINUTES_PER_DAY: integer(
    {
      group,
      description: "minutes of audio a chat may have transcribed per day (a chat's `limits.audioMinutesPerDay`)",
    },
    { min: 0, max: 100_000, fallback: 60 },
  ),
  SEARCH_PRICE_USD: decimal(
    { group, description: "what one `web_search` costs, for budgets and the usage record" },
    { max: 100, fallback: 0.005 },
  ),
  SEARCHES_PER_TURN: integer(
    { group, description: "searches one message may make (a chat's `limits.searchesPerTurn`)" },
    { min: 0, max: 100, fallback: 5 },
  ),
  SEARCHES_PER_DAY: integer(
    { group, description: "searches a chat may make per day (a chat's `limits.searchesPerDay`)" },
    { min: 0, max: 100_000, fallback: 100 },
  ),
  ANTHROPIC_WEB_SEARCH_PRICE_USD: decimal(
    { group, description: "what one Anthropic server-side search costs" },
    { max: 100, fallback: 0.01 },
  ),
  SPEECH_PRICE_USD_PER_MILLION_CHARS: decimal(
    {
      group,
      description:
        "what speech costs, for budgets and the usage record (OpenAI's `tts-1` list price; `gpt-4o-mini-tts` comes to about the same, Workers AI's MeloTTS to about $0.20)",
    },
    { max: 10_000, fallback: 15 },
  ),
  SPEECH_CHARS_PER_DAY: integer(
    { group, description: "characters a chat may have spoken per day (a chat's `limits.speechCharactersPerDay`)" },
    { min: 0, max: 100_000_000, fallback: 100_000 },
  ),
} as const;
