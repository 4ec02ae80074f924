import type { Settings } from "../../config/settings.ts";
import type { ModelTool } from "../../protocol/run-payload.ts";
import type { TurnSkills } from "../../skills/skill.ts";
import { skillsSection } from "../../skills/skill-prompt.ts";
import type { Tool, ToolRegistry } from "../../tools/registry.ts";
import { USE_SKILL } from "../../tools/use-skill.ts";
import type { TurnPolicy } from "./turn-policy.ts";

/** The tools a turn offers, as the model gets them, and the skills' part of its prompt. */
export interface TurnTools {
  tools: Tool[];
  modelTools: ModelTool[];
  /** The names the prompt lists (a provider's own search included). */
  toolNames: string[];
  skillText: string;
}

/**
 * The chat's allowed tools (its MCP servers' included, narrowed by its allowlist and the policy), and its skills: read
 * on demand with use_skill by a model, installed natively for an agent (its runner does it). Anthropic's server-side
 * search, where it is used, takes the place of `web_search`.
 */
export function turnTools(input: {
  policy: TurnPolicy;
  registry: ToolRegistry;
  allowlist: readonly string[] | undefined;
  settings: Settings;
  adapterKind: "model" | "agent";
  skills: TurnSkills;
  serverSearch: boolean;
}): TurnTools {
  const { policy, registry, adapterKind, skills, serverSearch } = input;
  const allowed = registry
    .allowed(input.allowlist, input.settings)
    .filter((tool) => policy.offers(tool.name) && !(serverSearch && tool.name === "web_search"));
  const readsSkills = adapterKind === "model" && skills.listed.length > 0 && allowed.some((t) => t.name === USE_SKILL);
  const tools = allowed.filter((tool) => tool.name !== USE_SKILL || readsSkills);
  const skillText = skillsSection(
    adapterKind === "agent" || readsSkills ? skills : { ...skills, listed: [] },
    adapterKind === "agent" ? "native" : "use_skill",
  );
  return {
    tools,
    modelTools: tools.map((tool) => registry.modelTool(tool)),
    toolNames: [...tools.map((tool) => tool.name), ...(serverSearch ? ["web_search"] : [])],
    skillText,
  };
}
