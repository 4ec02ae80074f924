import { integer, text, url } from "../knob.ts";

const group = "Speech";

export const SPEECH_KNOBS = {
  SPEECH_MODEL: text(
    {
      group,
      description:
        "text-to-speech model for spoken answers (`voiceReplies`, `/voice`): empty is OpenAI's `gpt-4o-mini-tts` at `OPENAI_BASE_URL` when `OPENAI_API_KEY` is set, else Workers AI's `@cf/myshell-ai/melotts` on the `AI` binding; a `@cf/…` name runs on the binding (`@cf/deepgram/aura-2-en`…); `off` turns speech off",
    },
    { maxLength: 200 },
  ),
  SPEECH_VOICE: text(
    {
      group,
      description:
        "OpenAI's voice (empty: `coral`; `alloy`, `nova`, `onyx`…) or an Aura model's speaker (`luna`…); MeloTTS has none",
    },
    { maxLength: 100 },
  ),
  SPEECH_BASE_URL: url({
    kind: "variable",
    group,
    description: "the speech API root (empty: `OPENAI_BASE_URL`, else OpenAI's); `OPENAI_API_KEY` is sent there",
  }),
  SPEECH_MAX_CHARS: integer(
    {
      group,
      description:
        "the most characters of an answer spoken (about a minute and a half); a longer answer is spoken up to a sentence within it, and the voice message's caption says so",
    },
    { min: 100, max: 4_000, fallback: 1_500 },
  ),
} as const;
