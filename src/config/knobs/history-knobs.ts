import { integer, optionalInteger, textWithDefault } from "../knob.ts";

const group = "History and memory";

/** The messages of history the model sees at most, unless HISTORY_LIMIT says otherwise. */
export const DEFAULT_HISTORY_LIMIT = 40;

export const HISTORY_KNOBS = {
  HISTORY_LIMIT: integer(
    {
      group,
      description: "messages of history the model sees at most; older ones are folded into the chat's summary",
    },
    { min: 2, max: 1_000, fallback: DEFAULT_HISTORY_LIMIT },
  ),
  HISTORY_WINDOW_TOKENS: integer(
    {
      group,
      description:
        "the history the model sees, in estimated tokens; a history past it or past `HISTORY_LIMIT` is compacted: its older part is summarised by the chat's own model after the answer is sent",
    },
    { min: 500, max: 2_000_000, fallback: 16_000 },
  ),
  HISTORY_MAX_STORED: optionalInteger(
    {
      group,
      description:
        "rows of live history a chat keeps (at least `HISTORY_LIMIT`); older ones move to its archive (same SQLite, still found by `search_history`) after the turn that passes it. Empty: 10 × `HISTORY_LIMIT`",
    },
    { min: 2, max: 1_000_000 },
  ),
  HISTORY_RETENTION_DAYS: optionalInteger(
    {
      group,
      description:
        'days archived history is kept (a chat\'s config may set `historyRetentionDays`, or `"forever"`); empty: forever; `0`: no archive (pruned rows and what `/new` clears are deleted after the turn)',
    },
    { min: 0, max: 36_500 },
  ),
  HISTORY_EMBEDDING_MODEL: textWithDefault(
    {
      group,
      description:
        "with `HISTORY_VECTORS` bound: the Workers AI embeddings model of `search_history`'s hybrid ranking (bge-m3: multilingual, 1,024 dimensions)",
    },
    "@cf/baai/bge-m3",
    200,
  ),
  PERSON_MEMORY_MAX_CHARS: integer(
    {
      group,
      description:
        "characters of what the bot knows of one person that each turn is given (newest first); consolidation merges a person's facts when they pass it",
    },
    { min: 200, max: 100_000, fallback: 2_000 },
  ),
  TOOL_RESULTS_MAX_CHARS: integer(
    { group, description: "characters of tool results one turn may feed back to the model, all calls together" },
    { min: 1_000, max: 10_000_000, fallback: 200_000 },
  ),
  SKILL_MAX_CHARS: integer(
    {
      group: "Agents, helpers, skills and MCP",
      description: "the most characters one skill may have, description and instructions together",
    },
    { min: 100, max: 100_000, fallback: 8_000 },
  ),
  SKILLS_MAX_TOTAL_CHARS: integer(
    {
      group: "Agents, helpers, skills and MCP",
      description: "the most characters one chat's skills may have together, and the bot's",
    },
    { min: 1_000, max: 1_000_000, fallback: 32_000 },
  ),
} as const;
