import { type AgentErrorEvent, BUDGET_RAN_OUT } from "../protocol/events.ts";

/** The message of the `timeout` error a turn gets when it runs into its time limit (see runTurn). */
export const TURN_TIME_LIMIT = "the turn ran into its time limit";

/** One short message per kind of failure; the technical detail goes to the log, not the chat, except for refusals. */
export function userFacingError(error: AgentErrorEvent): string {
  switch (error.classification) {
    case "auth":
      return "⚠️ The AI provider refused this bot's credentials. The bot's owner needs to check the API key.";
    case "quota":
      if (error.message === BUDGET_RAN_OUT) {
        return "⏳ This chat's budget for today ran out while I was working on that, so I stopped. /status shows it.";
      }
      return "⚠️ The AI provider is rate-limiting this bot right now. Please try again in a minute.";
    case "overloaded":
      return "⚠️ The AI provider is overloaded right now. Please try again in a minute.";
    case "timeout":
      if (error.message === TURN_TIME_LIMIT)
        return "⚠️ That took longer than one turn may run (about 13 minutes) and was stopped.";
      return "⚠️ The AI provider did not answer in time. Please try again shortly.";
    case "transport":
      return "⚠️ The AI provider could not be reached. Please try again shortly.";
    case "invalid_request":
      return `⚠️ The AI provider refused the request (${shorten(error.message)}). If this keeps happening, send /new to start a fresh conversation.`;
    case "cancelled":
      return "⏹ Stopped.";
    case "internal":
      return `⚠️ Something went wrong: ${shorten(error.message)}`;
  }
}

function shorten(text: string): string {
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
