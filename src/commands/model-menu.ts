import { type ServedModelSources, servedModels } from "../adapters/served-models.ts";
import { resolveConfig } from "../config/chat-config.ts";
import { type ConfigReader, editableConfig } from "../config/config-store.ts";
import { MODEL_PROVIDERS } from "../config/providers.ts";
import type { Settings } from "../config/settings.ts";
import type { ModelChoice } from "../config/settings-lists.ts";
import type { Keyboard } from "../telegram/client.ts";

const PREFIX = "model:";
/** The most buttons the menu shows, and of one provider's served models. */
const MAX_BUTTONS = 12;
const PER_PROVIDER = 6;
/** A button's data (`model:<provider>:<model>`) must fit Telegram's 64 bytes. */
const MAX_DATA_BYTES = 64;

/**
 * What `/model` offers: the owner's MODEL_CHOICES when set, else what each model provider with a key serves now (its
 * models endpoint, cached; src/adapters/served-models.ts), a few of each, newest first.
 */
export async function offeredChoices(sources: ServedModelSources): Promise<readonly ModelChoice[]> {
  const { settings } = sources;
  if (settings.modelChoices.length > 0) return settings.modelChoices;
  const lists = await Promise.all(
    MODEL_PROVIDERS.map(async (provider) => ({
      provider,
      models: (await servedModels(provider, sources)) ?? [],
    })),
  );
  const choices = lists.flatMap(({ provider, models }) =>
    models
      .map((model) => ({ provider, model }))
      .filter((choice) => new TextEncoder().encode(modelButtonData(choice)).length <= MAX_DATA_BYTES)
      .slice(0, PER_PROVIDER),
  );
  return choices.slice(0, MAX_BUTTONS);
}

/** A button's data for a choice: `model:<provider>:<model>` (MODEL_CHOICES keeps it within Telegram's 64 bytes). */
function modelButtonData(choice: ModelChoice): string {
  return `${PREFIX}${choice.provider}:${choice.model}`;
}

/** The offered choice a button names; a stale button (the list changed since) names none. */
export function modelChoiceOf(data: string, offered: readonly ModelChoice[]): ModelChoice | undefined {
  if (!data.startsWith(PREFIX)) return undefined;
  return offered.find((choice) => modelButtonData(choice) === data);
}

export function isModelButton(data: string): boolean {
  return data.startsWith(PREFIX);
}

/** `/model`'s text and, for admins, one button per offered choice (two a row), the current one ticked. */
export async function modelMenu(input: {
  configs: ConfigReader;
  settings: Settings;
  /** Where the providers' served models are asked (see offeredChoices). */
  served: ServedModelSources;
  chatId: number;
  withButtons: boolean;
}): Promise<{ text: string; keyboard: Keyboard }> {
  const stored = await input.configs.get(input.chatId);
  const config = resolveConfig(stored.state === "valid" ? stored.config : undefined, input.settings);
  const text = `This chat uses **${config.provider}** with model \`${config.model}\`.`;
  if (!input.withButtons) return { text, keyboard: [] };
  const choices = await offeredChoices(input.served);
  if (choices.length === 0) return { text, keyboard: [] };
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
