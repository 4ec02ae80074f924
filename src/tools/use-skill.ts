import * as z from "zod";
import { skillNameSchema } from "../skills/skill.ts";
import { defineTool, ToolError } from "./registry.ts";

/** Offered when the chat has skills that are listed rather than given whole (see src/skills/skill-prompt.ts). */
export const USE_SKILL = "use_skill";

export const useSkill = defineTool({
  name: USE_SKILL,
  description:
    "Read one of this chat's skills by its name (they are listed in your instructions): its full instructions, to " +
    "follow for the request at hand.",
  schema: z.object({ name: skillNameSchema.describe("The skill's name, as listed.") }),
  async handler({ name }, context) {
    // A skill is written by the chat's owner (admin API, console, /skills), not fetched from outside: reading one
    // does not make the turn untrusted.
    const skill = await context.readSkill(name);
    if (!skill) throw new ToolError(`This chat has no skill named "${name}".`);
    return { content: `Skill "${skill.name}" (${skill.description}):\n\n${skill.body}` };
  },
});
