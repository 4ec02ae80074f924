/**
 * Reading a Chat Completions conversation as the stand-in model needs it: what the person said last, and the tool
 * calls of the current turn with their results. Plain, erasable TypeScript.
 */

export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export type StandInReply =
  | { kind: "text"; text: string }
  | { kind: "tool"; name: string; arguments: Record<string, unknown> };

/** A tool the stand-in called in this turn, with its arguments and what it returned. */
export interface ToolStep {
  name: string;
  arguments: Record<string, unknown>;
  result: string;
  failed: boolean;
}

/** The newest user message's words, without the lines the bot adds around them (a quoted reply, a voice note's note). */
export function lastUserText(messages: readonly ChatMessage[]): string {
  const user = [...messages].reverse().find((message) => message.role === "user");
  return textOf(user?.content)
    .split("\n")
    .map((line) => line.replace(/^\[a voice note[^\]]*\]:\s*/i, "").trim())
    .filter((line) => line !== "" && !/^\[in reply to /i.test(line))
    .join("\n")
    .trim();
}

/** The tool calls since the newest user message, in order, each with its result (those answered so far). */
export function turnSteps(messages: readonly ChatMessage[]): ToolStep[] {
  let start = messages.length;
  while (start > 0 && messages[start - 1]!.role !== "user") start--;
  const turn = messages.slice(start);
  return turn.flatMap((message) =>
    (message.tool_calls ?? []).flatMap((call) => {
      const result = turn.find((candidate) => candidate.role === "tool" && candidate.tool_call_id === call.id);
      if (!result) return [];
      const content = textOf(result.content);
      return [
        {
          name: call.function.name,
          arguments: parseArguments(call.function.arguments),
          result: content,
          failed: /^error/i.test(content.trim()),
        },
      ];
    }),
  );
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { type?: string; text?: string }) => (part.type === "text" ? (part.text ?? "") : ""))
    .join(" ");
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
