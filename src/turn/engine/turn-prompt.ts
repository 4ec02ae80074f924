import type { PersonMemory } from "../../memory/people.ts";
import { buildSystemPrompt, type SystemPromptInput } from "../system-prompt.ts";
import type { TurnPolicy } from "./turn-policy.ts";

/** What the prompt says of the chat and its clock; the rest comes from the policy and the turn's tools. */
export interface PromptFacts {
  botName: string;
  /** The chat's own instructions from its config, if any. */
  chatPrompt?: string;
  chat: SystemPromptInput["chat"];
  now: Date;
  timezone: string;
  /** The people speaking and what the turn may know of them (src/memory/people.ts). */
  people?: readonly PersonMemory[];
}

/**
 * The one system prompt of every kind of turn: the shared prompt (system-prompt.ts), the policy's instructions, a note
 * about the chat's MCP servers, then what stands in for history the window no longer shows (a chat's summary).
 */
export function turnPrompt(input: {
  policy: TurnPolicy;
  facts: PromptFacts;
  toolNames: string[];
  skillText: string;
  mcpNote?: string | undefined;
  /** Appended as it is (it brings its own separation): see summarySection. */
  tail?: string;
}): string {
  const { policy, facts } = input;
  const prompt = buildSystemPrompt({
    botName: facts.botName,
    ...(facts.chatPrompt ? { chatPrompt: facts.chatPrompt } : {}),
    ...(input.skillText ? { skills: input.skillText } : {}),
    chat: facts.chat,
    toolNames: input.toolNames,
    ...(policy.guestOf === undefined ? {} : { guestOf: policy.guestOf }),
    ...(facts.people === undefined ? {} : { people: facts.people }),
    now: facts.now,
    timezone: facts.timezone,
  });
  const sections = [prompt, ...policy.instructions, ...(input.mcpNote === undefined ? [] : [input.mcpNote])];
  return sections.join("\n\n") + (input.tail ?? "");
}
