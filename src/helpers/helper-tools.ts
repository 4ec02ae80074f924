/**
 * What a helper may not call: sending to any chat (its report is its only message), scheduling, starting helpers,
 * changing the chat's memory, sending pictures, asking the person (a question's buttons or a widget: its report is
 * its only message), and searching the chat's history (it lives in the chat's object, not the helper's). Everything else the chat may use (reading the web, recalling facts,
 * listing tasks, the chat's MCP tools, reading skills) it may use too. A new tool that acts beyond its own answer
 * belongs here.
 */
const DENIED = new Set([
  "send_message",
  "schedule_task",
  "update_task",
  "pause_task",
  "resume_task",
  "cancel_task",
  "spawn",
  "remember",
  "forget",
  "generate_image",
  "search_history",
  "ask_user",
  "show_widget",
]);

export function isHelperTool(name: string): boolean {
  return !DENIED.has(name);
}
