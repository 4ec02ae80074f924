import * as z from "zod";
import { defineTool, ToolError } from "./registry.ts";

/**
 * A question with choices, as buttons (OpenClaw's `ask_user`): the person's tap resumes the conversation as their next
 * message, marked as their choice. In a group only the people the turn answered (or an admin) may answer it; an
 * unanswered question expires after a day and says so.
 */
export const askUser = defineTool({
  name: "ask_user",
  description:
    "Ask the person a question with 2 to 8 short choices, shown as buttons under your message. Use it when their " +
    "answer decides what you do next (which option, which one of several, yes or no). Their tap comes back as their " +
    "next message, marked as their choice. After calling it, end your turn with at most one short line; do not guess " +
    "or answer the question yourself.",
  schema: z.object({
    question: z.string().trim().min(1).max(300).describe("The question, in a sentence."),
    choices: z
      .array(z.string().trim().min(1).max(40))
      .min(2)
      .max(8)
      .describe("The choices, each a few words (a button's label)."),
  }),
  async handler({ question, choices }, context) {
    if (!context.ask) throw new ToolError("No one can answer a question here; ask in words instead.");
    if (new Set(choices.map((choice) => choice.toLowerCase())).size !== choices.length) {
      throw new ToolError("Two choices are the same; give each a different label.");
    }
    return { content: await context.ask({ question, choices }) };
  },
});
