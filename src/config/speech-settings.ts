import type { SettingValues } from "./settings-schema.ts";

/**
 * Text to speech: OpenAI's `/audio/speech` (or a compatible server) with OPENAI_API_KEY, a Workers AI model through
 * the `AI` binding, or off. `voice` undefined: the model's default.
 */
export type SpeechRoute =
  | { kind: "off" }
  | { kind: "openai"; model: string; voice: string | undefined; baseUrl: string | undefined }
  | { kind: "workers-ai"; model: string; voice: string | undefined };
export type SpeechSettings = SpeechRoute & {
  /** The most characters of an answer spoken; a longer one is spoken in part. */
  maxChars: number;
};

/** OpenAI's speech model when SPEECH_MODEL is unset and OPENAI_API_KEY is set; Workers AI's otherwise. */
const DEFAULT_OPENAI_SPEECH_MODEL = "gpt-4o-mini-tts";
const DEFAULT_WORKERS_AI_SPEECH_MODEL = "@cf/myshell-ai/melotts";

/**
 * SPEECH_MODEL, SPEECH_VOICE, SPEECH_BASE_URL and SPEECH_MAX_CHARS. A model OpenAI would run without OPENAI_API_KEY is
 * a problem /health reports, and answers are not spoken.
 */
export function speechSettingsOf(values: SettingValues, problems: string[]): SpeechSettings {
  const model = values.SPEECH_MODEL;
  const hasOpenAiKey = values.OPENAI_API_KEY !== undefined;
  if (model !== undefined && !isWorkersAiModel(model) && model.toLowerCase() !== "off" && !hasOpenAiKey) {
    problems.push("SPEECH_MODEL needs OPENAI_API_KEY (or a @cf/ model on Workers AI, or off): answers are not spoken");
  }
  return {
    ...speechRouteOf(model, {
      hasOpenAiKey,
      voice: values.SPEECH_VOICE,
      baseUrl: values.SPEECH_BASE_URL ?? values.OPENAI_BASE_URL,
    }),
    maxChars: values.SPEECH_MAX_CHARS,
  };
}

/** Workers AI's catalogue names its models `@cf/…` (and `@hf/…`): those run on the `AI` binding. */
function isWorkersAiModel(model: string): boolean {
  return /^@(cf|hf)\//.test(model);
}

/** SPEECH_MODEL: unset picks OpenAI's model when there is a key, else Workers AI's; `off` turns speech off. */
function speechRouteOf(
  model: string | undefined,
  options: { hasOpenAiKey: boolean; voice: string | undefined; baseUrl: string | undefined },
): SpeechRoute {
  const { hasOpenAiKey, voice, baseUrl } = options;
  if (model?.toLowerCase() === "off") return { kind: "off" };
  if (model !== undefined && isWorkersAiModel(model)) return { kind: "workers-ai", model, voice };
  if (model === undefined && !hasOpenAiKey)
    return { kind: "workers-ai", model: DEFAULT_WORKERS_AI_SPEECH_MODEL, voice };
  if (!hasOpenAiKey) return { kind: "off" };
  return { kind: "openai", model: model ?? DEFAULT_OPENAI_SPEECH_MODEL, voice, baseUrl };
}
