/**
 * What the local stand-in model answers. It is not a language model: it recognises a few requests so that the
 * bot's whole pipeline can be tried without a key (a streamed answer, tool calls through the bot's real tools, a
 * table, a long answer that is split, code) and says in every answer that it is a stand-in and how to get real ones.
 * Plain, erasable TypeScript: Node runs it with type stripping.
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

export const STAND_IN_MODEL = "stand-in-model";

export const FOOTER =
  "_🧪 Stand-in model: no model key is set. For real answers add `OPENAI_API_KEY=…` (or `ANTHROPIC_API_KEY=…` with `DEFAULT_PROVIDER=anthropic`) to `.dev.vars` and restart `npm run dev`._";

const HELP = [
  "Hello! I am the **local stand-in model**: I answer without any AI, so that you can try the whole bot on a fresh machine. Try:",
  "",
  "- `remember that my bike is blue` (the `remember` tool writes it to D1), then `what do you remember?` (`recall`)",
  "- `remind me to stretch` (`schedule_task`, one minute from now; its answer arrives here on its own)",
  "- `show me a table`, `show me some code`, `write something long` (formatting and splitting)",
  "- `/voice always`, then any message (a spoken answer: a silent voice message from me), or 🎤 in the playground",
  "- `/model`, `/status`, `/help` (commands the bot answers itself)",
].join("\n");

/** The answer to a conversation: a tool call the request offers, an answer to a tool's result, or text. */
export function standInReply(
  messages: readonly ChatMessage[],
  toolNames: readonly string[],
  now = new Date(),
): StandInReply {
  const last = messages.at(-1);
  if (last?.role === "tool") return { kind: "text", text: `${afterTool(messages, last)}\n\n${FOOTER}` };
  const said = lastUserText(messages);
  const lower = said.toLowerCase();
  const offered = (name: string) => toolNames.includes(name);

  const remember = /\bremember(?: that)?\s+(.+)/i.exec(said);
  if (remember && !/what do you remember/i.test(said) && offered("remember")) {
    return { kind: "tool", name: "remember", arguments: { fact: remember[1]!.trim().replace(/[.!]+$/, "") } };
  }
  if (/what do you remember|\brecall\b|what did i tell you/.test(lower) && offered("recall")) {
    return { kind: "tool", name: "recall", arguments: {} };
  }
  const remind = /\bremind me (?:to |about )?(.+)/i.exec(said);
  if (remind && offered("schedule_task")) {
    const at = new Date(now.getTime() + 60_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    return {
      kind: "tool",
      name: "schedule_task",
      arguments: { prompt: `Remind the user to ${remind[1]!.trim().replace(/[.!]+$/, "")}.`, at },
    };
  }
  return { kind: "text", text: `${textAnswer(said, lower)}\n\n${FOOTER}` };
}

function textAnswer(said: string, lower: string): string {
  if (/scheduled task #\d+/i.test(said)) {
    const task = said.split("\n").slice(1).join(" ").trim();
    return `⏰ ${task.replace(/^Remind the user to /i, "Time to ").replace(/\.$/, "")}! (a scheduled task, run by the bot on its own)`;
  }
  if (/\btable\b/.test(lower)) {
    return [
      "Here is a table, rendered by the bot for Telegram:",
      "",
      "| Tool | What it does | Data |",
      "| --- | --- | ---: |",
      "| remember | keeps a fact | D1 |",
      "| recall | finds facts | D1 |",
      "| schedule_task | runs a prompt later | D1 + alarm |",
    ].join("\n");
  }
  if (/\bcode\b/.test(lower)) {
    return 'Some code, as a Telegram code block:\n\n```ts\nconst greeting: string = "hello";\nconsole.log(greeting);\n```\n\nAnd `inline code` too.';
  }
  if (/\blong\b/.test(lower)) {
    const paragraph =
      "This is a long answer from the stand-in model. The bot streams it as it is written, and a message longer than Telegram's 4,096 characters continues in the next one without repeating what was shown.";
    return Array.from({ length: 30 }, (_, index) => `**${index + 1}.** ${paragraph}`).join("\n\n");
  }
  if (said === "" || /^(hi|hello|hey|help|start)\b/.test(lower)) return HELP;
  return `You said: “${said.slice(0, 500)}”. I cannot think about it (I am not a model), but everything around this answer is the real bot.\n\n${HELP}`;
}

/** After a tool ran: what it did, from its result as the bot's tool returned it. */
function afterTool(messages: readonly ChatMessage[], result: ChatMessage): string {
  const call = messages
    .flatMap((message) => message.tool_calls ?? [])
    .find((toolCall) => toolCall.id === result.tool_call_id);
  const content = textOf(result.content);
  if (/^error/i.test(content.trim())) return `The tool \`${call?.function.name ?? "?"}\` said: ${content}`;
  switch (call?.function.name) {
    case "remember":
      return `Noted. The \`remember\` tool stored it in D1: ${content}\nAsk me “what do you remember?” to get it back through \`recall\`.`;
    case "recall":
      return `Here is what \`recall\` found in D1:\n\n${content}`;
    case "schedule_task":
      return `Scheduled with \`schedule_task\`: ${content}\nIn about a minute the bot runs it and posts its answer here; /tasks lists it.`;
    default:
      return `The tool \`${call?.function.name ?? "?"}\` answered:\n\n${content.slice(0, 1500)}`;
  }
}

/** The newest user message's words, without the lines the bot adds around them (a quoted reply, a voice note's note). */
function lastUserText(messages: readonly ChatMessage[]): string {
  const user = [...messages].reverse().find((message) => message.role === "user");
  return textOf(user?.content)
    .split("\n")
    .map((line) => line.replace(/^\[a voice note[^\]]*\]:\s*/i, "").trim())
    .filter((line) => line !== "" && !/^\[in reply to /i.test(line))
    .join("\n")
    .trim();
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { type?: string; text?: string }) => (part.type === "text" ? (part.text ?? "") : ""))
    .join(" ");
}
