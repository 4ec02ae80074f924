import type { TurnSkills } from "./skill.ts";

/**
 * The skills' part of the system prompt. `always` skills are given whole; the others are listed by name and
 * description, to be read with `use_skill` when a request needs one (model adapters), or left to the agent's own
 * skill listing (agents get them as native skills in their container). Skills come from the chat's owner (the admin
 * API, the console, an admin's `/skills`), so they are instructions, not quoted data. Empty when there are none.
 */
export function skillsSection(skills: TurnSkills, listing: "use_skill" | "native"): string {
  const parts: string[] = [];
  if (skills.always.length > 0) {
    parts.push(
      [
        "Skills for this chat, from its owner (follow them whenever they apply):",
        ...skills.always.map((skill) => `<skill name="${skill.name}">\n${skill.body}\n</skill>`),
      ].join("\n"),
    );
  }
  if (listing === "use_skill" && skills.listed.length > 0) {
    parts.push(
      [
        "More skills: when a request matches one of these, call use_skill with its name first and follow what it " +
          "says (name: what it is for):",
        ...skills.listed.map((skill) => `- ${skill.name}: ${skill.description}`),
      ].join("\n"),
    );
  }
  return parts.join("\n\n");
}
