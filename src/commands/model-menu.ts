import { resolveConfig } from "../config/chat-config.ts";
import { type ConfigReader, editableConfig } from "../config/config-store.ts";
import type { Settings } from "../config/settings.ts";
import type { ModelChoice } from "../config/settings-lists.ts";
import type { Keyboard } from "../telegram/client.ts";

const PREFIX = "model:";

/** A button's data for a choice: `model:<provider>:<model>` (MODEL_CHOICES keeps it within Telegram's 64 bytes). */
function modelButtonData(choice: ModelChoice): string {
  return `${PREFIX}${choice.provider}:${choice.model}`;
}

/** The configured choice a button names; a stale button (the list changed since) names none. */
export function modelChoiceOf(data: string, settings: Settings): ModelChoice | undefined {
  if (!data.startsWith(PREFIX)) return undefined;
  return settings.modelChoices.find((choice) => modelButtonData(choice) === data);
}

export function isModelButton(data: string): boolean {
  return data.startsWith(PREFIX);
}

/** `/model`'s text and, for admins, one button per configured choice (two a row), the current one ticked. */
export async function modelMenu(input: {
  configs: ConfigReader;
  settings: Settings;
  chatId: number;
  withButtons: boolean;
}): Promise<{ text: string; keyboard: Keyboard }> {
  const stored = await input.configs.get(input.chatId);
  const config = resolveConfig(stored.state === "valid" ? stored.config : undefined, input.settings);
  const text = `This chat uses **${config.provider}** with model \`${config.model}\`.`;
  if (!input.withButtons) return { text, keyboard: [] };
  const choices = input.settings.modelChoices;
  const buttons = choices.map((choice) => {
    const current = choice.provider === config.provider && choice.model === config.model;
    // The model's name alone, unless two providers offer a model of that name.
    const shared = choices.some((other) => other !== choice && other.model === choice.model);
    const label = shared ? `${choice.provider}: ${choice.model}` : choice.model;
    return { text: `${current ? "✓ " : ""}${label}`, data: modelButtonData(choice) };
  });
  const keyboard: Keyboard = [];
  for (let index = 0; index < buttons.length; index += 2) keyboard.push(buttons.slice(index, index + 2));
  return { text: `${text}\nChoose another:`, keyboard };
}

/** Stores a chosen provider and model in the chat's config (the rest of it kept). */
export async function chooseModel(
  configs: ConfigReader,
  chatId: number,
  choice: ModelChoice,
): Promise<{ refused: string } | undefined> {
  const editable = editableConfig(await configs.get(chatId));
  if ("refused" in editable) return editable;
  await configs.put(chatId, { ...editable.config, provider: choice.provider, model: choice.model });
  return undefined;
}
