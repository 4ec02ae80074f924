/**
 * The stand-in model and the people's memory: "I'm vegetarian and my daughter Mia is 7" (a person telling the bot
 * about themselves) becomes a `remember` with `scope: "person"`, and "suggest a dinner" is answered with what the
 * system prompt says of the person speaking, so the privacy rule can be tried in the playground without a key.
 * Plain, erasable TypeScript.
 */
import type { ChatMessage, StandInReply } from "./conversation.ts";

/** A sentence about oneself, in a private chat or after a group's "Name: " prefix; not a question. */
const ABOUT_ME = /^(?:[^:\n]{1,64}:\s*)?(?:@\w+\s+)?((?:i'm|i am)\s.+)$/i;

/** `remember` of what the person says about themselves, when it is offered. */
export function aboutMe(said: string, offered: (name: string) => boolean): StandInReply | undefined {
  const match = ABOUT_ME.exec(said.trim());
  if (!match || said.trim().endsWith("?") || !offered("remember")) return undefined;
  const words = match[1]!.replace(/[.!]+$/, "");
  return {
    kind: "tool",
    name: "remember",
    arguments: { fact: `The person said about themselves: "${words}"`, scope: "person" },
  };
}

/** "suggest a dinner…": an answer naming what the system prompt says of the people speaking, or undefined. */
export function dinnerIdea(said: string, messages: readonly ChatMessage[]): string | undefined {
  if (!/\b(dinner|lunch|cook|meal)\b/i.test(said)) return undefined;
  const system = messages.find((message) => message.role === "system");
  const prompt = typeof system?.content === "string" ? system.content : "";
  const known = [...prompt.matchAll(/^\s+- #\d+(?: \([^)]*\))? (.+)$/gm)].map((match) => match[1]!);
  if (known.length === 0) {
    return "A dinner idea: pasta with tomatoes and basil. (I know nothing about you yet: tell me, say, “I'm vegetarian”.)";
  }
  return [
    "A dinner idea that fits what I know of you:",
    "",
    ...known.map((fact) => `- ${fact}`),
    "",
    "So: a vegetable lasagne, mild enough for a child, with a green salad.",
  ].join("\n");
}
