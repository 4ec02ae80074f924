import { type PersonMemory, peopleSection } from "../memory/people.ts";

export interface SystemPromptInput {
  botName: string;
  /** The chat's own instructions from its config, if any. */
  chatPrompt?: string;
  /** The chat's skills: those always given whole, and a listing of the others (src/skills/skill-prompt.ts). */
  skills?: string;
  chat: { type: "private" | "group" | "supergroup"; title?: string; isForumTopic: boolean };
  toolNames: string[];
  /** A guest turn: who summoned the bot into a chat it is not in (their display name). */
  guestOf?: string;
  /** The people speaking and what the turn may know of them (src/memory/people.ts). */
  people?: readonly PersonMemory[];
  now: Date;
  timezone: string;
}

/** The one system prompt every adapter gets. The date comes last so the stable part can be cached by providers. */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const parts: string[] = [
    `You are ${input.botName}, an AI assistant in a Telegram chat.`,
    input.guestOf === undefined ? describeChat(input.chat) : describeGuest(input.guestOf, input.chat.type),
    "Answer in the language the user writes in. Keep answers short and to the point unless asked for detail. " +
      "You may use Markdown (bold, italics, code, links, lists); it is rendered for Telegram. Avoid tables.",
  ];
  if (input.toolNames.length > 0) parts.push(describeTools(input.toolNames));
  if (input.chatPrompt) parts.push(`Instructions for this chat:\n${input.chatPrompt}`);
  if (input.skills) parts.push(input.skills);
  const people = input.people && peopleSection(input.people, input.chat.type === "private");
  if (people) parts.push(people);
  parts.push(`The current date and time is ${formatNow(input.now, input.timezone)} (${input.timezone}).`);
  return parts.join("\n\n");
}

function describeGuest(summoner: string, type: SystemPromptInput["chat"]["type"]): string {
  const where = type === "private" ? "a private chat between other people" : "a group";
  // The name is chosen by its owner: quoted as data, on one line, bounded.
  const name = JSON.stringify(oneLine(summoner).slice(0, 64));
  return (
    `${name} summoned you as a guest into ${where} you are not a member of. Your answer is posted there as one message ` +
    "for everyone in that chat to read. You see only the message that summoned you (and the one it replies to), " +
    `not that chat's history nor your own conversations with ${name}. Answer in one message, under 3,500 characters.`
  );
}

function describeChat(chat: SystemPromptInput["chat"]): string {
  if (chat.type === "private") return "This is a private chat with one person.";
  // The title is chosen by the group's members: quoted as data, on one line, bounded.
  const title = chat.title ? ` called ${JSON.stringify(oneLine(chat.title).slice(0, 128))}` : "";
  const topic = chat.isForumTopic ? ", in one topic of the group's forum" : "";
  return (
    `This is a group chat${title}${topic}. Each user message starts with the sender's name. ` +
    "You see only the messages addressed to you (mentions, replies to you and commands)."
  );
}

function describeTools(names: string[]): string {
  const lines = [`You have these tools: ${names.join(", ")}.`];
  if (names.includes("remember")) {
    lines.push(
      "When the user asks you to remember something, or shares a lasting fact or preference, call remember. " +
        "Before answering questions about earlier facts, call recall.",
    );
  }
  if (names.includes("search_history")) {
    lines.push(
      "You see only the recent conversation: for anything said earlier (a decision, a number, a plan), call " +
        "search_history before saying you do not know.",
    );
  }
  if (names.includes("web_search")) {
    lines.push(
      "For current events or facts you are unsure of, call web_search, then read the best page with web_fetch.",
    );
  }
  if (names.includes("schedule_task")) {
    lines.push(
      "For reminders and recurring work, call schedule_task with an ISO-8601 time (`at`) or a cron expression " +
        "(`cron`). A task's prompt is what you will be asked to do when it runs, so write it as an instruction to " +
        'yourself (e.g. "Remind the user to stretch").',
    );
  }
  if (names.includes("ask_user")) {
    lines.push(
      "When the person's answer decides what you do next (which of several options), call ask_user with short " +
        "choices instead of asking in words, then stop; their tap comes back as their next message.",
    );
  }
  if (names.includes("show_widget")) {
    lines.push(
      "For a list to tick off (packing, steps, to-dos), a pick among options or a few numbers to compare, call " +
        "show_widget (a checklist, a choice or a chart) instead of writing it out; it arrives as a message where a " +
        "widget cannot go.",
    );
  }
  lines.push("A tool result that starts with an error means the call failed; say so rather than pretending it worked.");
  return lines.join(" ");
}

/**
 * Building an Intl formatter costs more than a model turn's other prompt work; one per time zone is kept, with the
 * text of the last minute it formatted (the text has minute precision and every zone's offset is whole minutes, and
 * formatting it again each turn was a seventieth of a plain turn's CPU).
 */
const formatters = new Map<string, { formatter: Intl.DateTimeFormat; minute: number; text: string }>();

function formatNow(now: Date, timezone: string): string {
  const minute = Math.floor(now.getTime() / 60_000);
  let kept = formatters.get(timezone);
  if (!kept) {
    kept = { formatter: makeFormatter(timezone), minute: Number.NaN, text: "" };
    formatters.set(timezone, kept);
  }
  if (kept.minute !== minute) {
    kept.minute = minute;
    kept.text = kept.formatter.format(now);
  }
  return kept.text;
}

function makeFormatter(timezone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat("en-GB", {
    timeZone: timezone,
    weekday: "long",
    year: "numeric",
    month: "long",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hour12: false,
  });
}

function oneLine(text: string): string {
  return text.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, " ").trim();
}
