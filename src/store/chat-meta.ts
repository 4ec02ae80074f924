import * as z from "zod";
import { paidUnitsSchema } from "../config/paid-kinds.ts";
import { helperHoldSchema } from "../helpers/helper-job.ts";
import { chatDescriptionSchema, chatTargetSchema } from "../telegram/incoming-message.ts";
import { widgetStateSchema } from "../widgets/widget-kinds.ts";

/** What a chat has spent on one calendar day (in its time zone). */
const dailySpendSchema = z.object({
  /** YYYY-MM-DD in the chat's time zone. */
  day: z.string(),
  tokens: z.number(),
  costUsd: z.number(),
  /** The chat was told today that its budget is used up. */
  noticeSent: z.boolean(),
  /** Paid calls besides tokens, by kind (their cost is in `costUsd`). */
  units: paidUnitsSchema.optional(),
});
export type DailySpend = z.infer<typeof dailySpendSchema>;

/** The rolling summary of a chat's conversation: provider-neutral text covering every history row up to `throughId`. */
const historySummarySchema = z.object({
  text: z.string(),
  /** The last history row the summary covers; the window the model sees starts after it. */
  throughId: z.number().int(),
  /** How many messages it covers, all passes together. */
  messages: z.number().int(),
  updatedAt: z.number(),
  /** Provenance: what content from outside the chat the summarised messages held (it stays with the summary). */
  outside: z.string().max(200).optional(),
});
export type HistorySummary = z.infer<typeof historySummarySchema>;

/** The last summary attempt failed: when and why (it is tried again after the next turn). */
const summaryFailureSchema = z.object({ at: z.number(), reason: z.string() });

/** A tool call held back for the person's confirmation (see src/turn/pending-actions.ts). */
const pendingActionSchema = z.object({
  id: z.string().regex(/^[a-z0-9]{12}$/),
  tool: z.string().max(64),
  argumentsText: z.string().max(200_000),
  summary: z.string().max(500),
  /** Who may confirm it besides an admin: the people the turn answered. */
  askers: z.array(z.number().int()).max(100),
  createdAt: z.number(),
  /** What the person was shown (the header and the whole details), for the pages' buttons. */
  view: z.object({ header: z.string().max(4000), detail: z.string().max(30_000) }).optional(),
  /** The SHA-256 (16 hex digits) of `argumentsText` as shown: the press runs the call only if it still matches. */
  argumentsHash: z
    .string()
    .regex(/^[0-9a-f]{16}$/)
    .optional(),
  /** What outside content the asking turn held: the record of the answer carries it on. */
  source: z.string().max(500).optional(),
});
export type PendingAction = z.infer<typeof pendingActionSchema>;

/** A question the model asked with buttons (ask_user), waiting for a tap (see src/turn/questions.ts). */
const openQuestionSchema = z.object({
  id: z.string().regex(/^[a-z0-9]{10}$/),
  question: z.string().max(300),
  choices: z.array(z.string().max(40)).min(2).max(8),
  /** Who may answer besides an admin: the people the turn answered. */
  askers: z.array(z.number().int()).max(100),
  /** The message with the buttons. */
  messageId: z.number().int(),
  askedAt: z.number(),
  expiresAt: z.number(),
});
export type OpenQuestion = z.infer<typeof openQuestionSchema>;

/** A widget this chat was shown (show_widget) and the state its object keeps for it, which is its chat data. */
const shownWidgetSchema = z.object({
  messageId: z.number().int(),
  kind: z.enum(["checklist", "choice", "chart", "html"]),
  title: z.string().max(120),
  /** A checklist's items, a choice's options, a chart's labels (none for the model's own HTML). */
  labels: z.array(z.string().max(80)).max(30),
  state: widgetStateSchema,
  sentAt: z.number(),
});
export type ShownWidget = z.infer<typeof shownWidgetSchema>;

/** A background helper this chat started that has not reported yet. */
const runningHelperSchema = z.object({
  /** Its object's id. */
  id: z.string(),
  number: z.number().int().positive(),
  label: z.string(),
  startedBy: z.number().int().optional(),
  startedAt: z.number(),
  /** When it must have ended (its time limit); long after that it counts as lost. */
  deadlineAt: z.number(),
  /** Its slice, held in the day's spend until it reports. */
  hold: helperHoldSchema,
  /** The "started" line in the chat, whose Stop button goes when it ends. */
  statusMessageId: z.number().int().optional(),
});
export type RunningHelper = z.infer<typeof runningHelperSchema>;

/** The chat object's small named values, each with the schema it is read back through. */
export const chatMetaSchemas = {
  /** Where answers go: the chat, and its forum topic. */
  target: chatTargetSchema,
  chat: chatDescriptionSchema,
  /** The claude-agent runner's session, resumed by the next claude-agent turn. */
  agentSessionId: z.string(),
  /** The codex-agent runner's thread, resumed by the next codex-agent turn. */
  codexSessionId: z.string(),
  /** When a stranger was last told this chat's id. */
  strangerNoticeAt: z.number(),
  /** The earliest next run of this chat's (topic's) scheduled tasks. */
  nextTaskAt: z.number(),
  /** When finished inbox rows were last pruned. */
  prunedAt: z.number(),
  /** What the chat spent today, against its daily budget. */
  spend: dailySpendSchema,
  /** Telegram refused a draft here once: answers stream as an edited message instead. */
  draftsRefused: z.boolean(),
  /** Telegram refused a rich message here: answers go on the HTML path until then (epoch ms), and why. */
  richRefused: z.object({ until: z.number(), reason: z.string().max(300) }),
  /**
   * Telegram last refused a message here for good (the bot blocked or kicked, the chat gone, a message it will never
   * take): when, and its words. What waited in the outbox then was dropped.
   */
  telegramRefused: z.object({ at: z.number(), description: z.string().max(300) }),
  /** Messages the outbox gave up on (past OUTBOX_MAX_HOURS, or refused): how many, and the last one's reason. */
  outboxDropped: z.object({ count: z.number().int(), lastAt: z.number(), reason: z.string().max(300) }),
  /** What `/health` was last told of this chat's outbox (see config/waiting-outboxes.ts): how many waited, when. */
  outboxMarked: z.object({ waiting: z.number().int(), at: z.number() }),
  /** The rolling summary of the conversation up to a history row (compaction). */
  summary: historySummarySchema,
  summaryFailure: summaryFailureSchema,
  /** When this chat was last written to the chat directory (D1), and under which name. */
  directoryWritten: z.object({ at: z.number(), name: z.string() }),
  /** This chat's pairing code while it waits for approval. */
  pairing: z.object({ code: z.string(), expiresAt: z.number() }),
  /** Tool calls waiting for the person's confirmation, newest last. */
  pendingActions: z.array(pendingActionSchema).max(20),
  /** When the chat was last told that its stored config is invalid (at most once an hour). */
  configProblemNoticeAt: z.number(),
  /** The last history row the vector index has (search_history's hybrid ranking, when HISTORY_VECTORS is bound). */
  embeddedThroughId: z.number().int(),
  /**
   * The last history row (live or archived) the full-text index has: rows after it are indexed when the index is next
   * read (see HistorySearchStore), not as they are written.
   */
  searchIndexedThroughId: z.number().int().nonnegative(),
  /** Wrong setup codes tried this hour (`/pair <code>`). */
  setupAttempts: z.object({ since: z.number(), count: z.number().int() }),
  /** The background helpers running for this chat. */
  helpers: z.array(runningHelperSchema),
  /** How many helpers this chat has started: the next one's number is one more. */
  helperCount: z.number().int(),
  /**
   * A private chat whose person had no facts here when last read: its turns skip the read (only this chat's turns
   * write facts a private chat shows; a write here clears it).
   */
  personFactsNone: z.boolean(),
  /** People whose facts a turn here changed since this chat last looked at consolidating them (user ids). */
  memoryChanged: z.array(z.number().int()).max(50),
  /** When each person's memory was last consolidated from this chat, and how many facts they then had (by user id). */
  memoryConsolidated: z.record(z.string(), z.object({ at: z.number(), facts: z.number().int() })),
  /** The widgets shown here lately (the newest 20), with their state. */
  widgets: z.array(shownWidgetSchema).max(20),
  /** Telegram refused a widget here (no such method, not allowed): answers that would be widgets are messages until. */
  widgetsRefused: z.object({ until: z.number(), reason: z.string().max(300) }),
  /** Questions with buttons waiting for a tap, oldest first. */
  questions: z.array(openQuestionSchema).max(20),
};

export type ChatMetaKey = keyof typeof chatMetaSchemas;
export type ChatMeta = { [Key in ChatMetaKey]: z.infer<(typeof chatMetaSchemas)[Key]> };
