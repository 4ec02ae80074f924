/**
 * What the local stand-in model answers. It is not a language model: it recognises a few requests so that the
 * bot's whole pipeline can be tried without a key (a streamed answer, tool calls through the bot's real tools: memory,
 * reminders, a web search and the page it finds, the chat's history; a table, a long answer that is split, code) and
 * says in every answer that it is a stand-in and how to get real ones.
 * Plain, erasable TypeScript: Node runs it with type stripping.
 */
import { type ChatMessage, lastUserText, type StandInReply, turnSteps } from "./conversation.ts";
import { afterHistorySearch, historyQuery } from "./history-answers.ts";
import { aboutMe, dinnerIdea } from "./people-answers.ts";
import { afterWebFetch, afterWebSearch, webQuery } from "./web-answers.ts";

export type { ChatMessage, StandInReply } from "./conversation.ts";

export const STAND_IN_MODEL = "stand-in-model";

export const FOOTER =
  "_🧪 Stand-in model: no model key is set. For real answers add `OPENAI_API_KEY=…` (or `ANTHROPIC_API_KEY=…` with `DEFAULT_PROVIDER=anthropic`) to `.dev.vars` and restart `npm run dev`._";

const HELP = [
  "Hello! I am the **local stand-in model**: I answer without any AI, so that you can try the whole bot on a fresh machine. Try:",
  "",
  "- `remember that my bike is blue` (the `remember` tool writes it to D1), then `what do you remember?` (`recall`)",
  "- `I'm vegetarian and my daughter Mia is 7` (kept with you), then in the family group `suggest a dinner for tonight`; `/memory` shows and forgets",
  "- `remind me to stretch` (`schedule_task`, one minute from now; its answer arrives here on its own)",
  "- `what's new with the Bot API this week?` (`web_search`, then `web_fetch` of the best result; an answer with links)",
  "- `my locker code is 4711`, a few more messages, then `what did I say my locker code was?` (`search_history`)",
  "- `show me a table`, `show me some code`, `write something long` (formatting and splitting)",
  "- `make me a packing checklist for a weekend trip` (`show_widget`: a checklist widget whose ticks the bot keeps; a message in a group)",
  "- `help me choose between these three laptops` (`ask_user`: a question with buttons; your tap continues the conversation)",
  "- `/voice when-spoken-to`, then 🎤 in the playground (a voice note gets a spoken answer with its text); `/voice always` speaks every answer",
  "- `/model`, `/status`, `/help` (commands the bot answers itself)",
].join("\n");

/** The answer to a conversation: a tool call the request offers, an answer to a tool's result, or text. */
export function standInReply(
  messages: readonly ChatMessage[],
  toolNames: readonly string[],
  now = new Date(),
): StandInReply {
  const said = lastUserText(messages);
  if (messages.at(-1)?.role === "tool") {
    const next = afterTool(messages, toolNames, said);
    return next.kind === "text" ? { kind: "text", text: `${next.text}\n\n${FOOTER}` } : next;
  }
  const lower = said.toLowerCase();
  const offered = (name: string) => toolNames.includes(name);

  const remember = /\bremember(?: that)?\s+(.+)/i.exec(said);
  if (remember && !/what do you remember/i.test(said) && offered("remember")) {
    return { kind: "tool", name: "remember", arguments: { fact: remember[1]!.trim().replace(/[.!]+$/, "") } };
  }
  const personal = aboutMe(said, offered);
  if (personal) return personal;
  const inHistory = historyQuery(said);
  if (inHistory && offered("search_history"))
    return { kind: "tool", name: "search_history", arguments: { query: inHistory } };
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
  const chose = /^(?:\w[^:]*: )?\[Chose "([^"]+)"/.exec(said);
  if (chose) {
    return {
      kind: "text",
      text: `You chose **${chose[1]}**: it came back to me as your next message, in the same conversation.\n\n${FOOTER}`,
    };
  }
  if (/\bchecklist\b/.test(lower) && offered("show_widget")) {
    return {
      kind: "tool",
      name: "show_widget",
      arguments: {
        kind: "checklist",
        title: "Weekend trip packing",
        items: ["Tent", "Sleeping bag", "Headlamp", "Rain jacket", "Snacks", "Phone charger"],
      },
    };
  }
  if (/\bchecklist\b/.test(lower)) {
    // Where no widget can be shown (a guest's answer offers no such tool), the list as Markdown.
    const items = ["Tent", "Sleeping bag", "Headlamp", "Rain jacket", "Snacks", "Phone charger"];
    return {
      kind: "text",
      text: `**Weekend trip packing**\n\n${items.map((item) => `- [ ] ${item}`).join("\n")}\n\n${FOOTER}`,
    };
  }
  if (/\bchoose between\b/.test(lower) && offered("ask_user")) {
    return {
      kind: "tool",
      name: "ask_user",
      arguments: { question: "Which laptop matters most to you?", choices: ["MacBook Air", "ThinkPad X1", "Dell XPS"] },
    };
  }
  if (/\bchoose between\b/.test(lower)) {
    return {
      kind: "text",
      text: `Which matters most to you: **MacBook Air** (light), **ThinkPad X1** (keyboard) or **Dell XPS** (screen)? Tell me and I will pick.\n\n${FOOTER}`,
    };
  }
  const onTheWeb = webQuery(said);
  if (onTheWeb && offered("web_search")) return { kind: "tool", name: "web_search", arguments: { query: onTheWeb } };
  if (onTheWeb) {
    const why =
      "`web_search` is not offered in this chat: no search backend is configured (`SEARXNG_URL`, `BRAVE_SEARCH_API_KEY` or `TAVILY_API_KEY` in `.dev.vars`; `npm run dev` starts a stand-in search when none is set and `WEB_SEARCH` is not `off`), or the chat's tool list leaves it out.";
    return { kind: "text", text: `I would search the web for “${onTheWeb}”, but ${why}\n\n${FOOTER}` };
  }
  return { kind: "text", text: `${dinnerIdea(said, messages) ?? textAnswer(said, lower)}\n\n${FOOTER}` };
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
  // Short, and without the list of things to try: a chat of many messages stays searchable by what was said.
  return `You said: “${said.slice(0, 500)}”. I cannot think about it (I am not a model), but everything around this answer is the real bot. Say \`hello\` to see what I can show.`;
}

/** After a tool ran: the next step (web_search leads to web_fetch), or what it did, from its result. */
function afterTool(messages: readonly ChatMessage[], toolNames: readonly string[], said: string): StandInReply {
  const steps = turnSteps(messages);
  const step = steps.at(-1);
  const text = (value: string): StandInReply => ({ kind: "text", text: value });
  if (!step) return text("I lost track of the tool I called.");
  if (step.name === "web_search") return afterWebSearch(step, toolNames);
  if (step.name === "web_fetch")
    return text(
      afterWebFetch(
        step,
        steps.findLast((earlier) => earlier.name === "web_search"),
      ),
    );
  if (step.name === "search_history") return text(afterHistorySearch(step, said));
  const content = step.result;
  if (step.failed) return text(`The tool \`${step.name}\` said: ${content}`);
  switch (step.name) {
    case "remember":
      return text(
        `Noted. The \`remember\` tool stored it in D1: ${content}\nAsk me “what do you remember?” to get it back through \`recall\`.`,
      );
    case "recall":
      return text(`Here is what \`recall\` found in D1:\n\n${content}`);
    case "show_widget":
      return text(
        /widget/.test(content) && !/Not a widget/.test(content) ? "Here it is: tick what you packed." : "Here it is.",
      );
    case "ask_user":
      return text("Tap one.");
    case "schedule_task":
      return text(
        `Scheduled with \`schedule_task\`: ${content}\nIn about a minute the bot runs it and posts its answer here; /tasks lists it.`,
      );
    default:
      return text(`The tool \`${step.name}\` answered:\n\n${content.slice(0, 1500)}`);
  }
}
