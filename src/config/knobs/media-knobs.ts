import { custom, integer, readingOf, text, url } from "../knob.ts";

const group = "Photos, voice and files";

/** Model name patterns that see images and read PDFs, unless VISION_MODELS says otherwise. */
const DEFAULT_VISION_MODELS = [
  "gpt-4o*",
  "gpt-4.1*",
  "gpt-4.5*",
  "gpt-5*",
  "o1",
  "o3",
  "o4-mini*",
  "claude-*",
  "gemini-*",
];

export const MEDIA_KNOBS = {
  MEDIA_MAX_FILE_MB: integer(
    {
      group,
      description:
        "files larger than this are not downloaded, and the chat is told (at most 20, the Bot API's download limit)",
    },
    { min: 1, max: 20, fallback: 20 },
  ),
  MEDIA_MAX_IMAGES_PER_TURN: integer(
    {
      group,
      description: "images and PDFs one model call gets, the most recent first; older ones are named, not shown",
    },
    { min: 0, max: 100, fallback: 4 },
  ),
  IMAGE_MAX_EDGE_PX: integer(
    { group, description: "a photo is read in the largest size Telegram has whose longer edge is within this" },
    { min: 90, max: 10_000, fallback: 1_568 },
  ),
  DOCUMENT_TEXT_MAX_CHARS: integer(
    {
      group,
      description:
        "characters of text files (txt, md, csv, json, code…) one message gives the model, all its files together; the rest is cut with a note. A file from an earlier message counts in the window: the model sees its first 2,000 characters while there is room, else a line saying it is not shown again",
    },
    { min: 1_000, max: 2_000_000, fallback: 100_000 },
  ),
  VISION_MODELS: custom<readonly string[]>(
    {
      group,
      description:
        "comma-separated model names (`*` matches anything) that see images and read PDFs; other models get a sentence instead of the file",
    },
    {
      rule: "comma-separated model names, where * matches anything",
      fallback: DEFAULT_VISION_MODELS,
      shownDefault: DEFAULT_VISION_MODELS.join(","),
      read(value) {
        const patterns = value
          .split(",")
          .map((pattern) => pattern.trim())
          .filter((pattern) => pattern !== "");
        return patterns.every((pattern) => /^[A-Za-z0-9._:/@*-]{1,200}$/.test(pattern))
          ? readingOf(patterns)
          : { ok: false, problem: "must be comma-separated model names, where * matches anything" };
      },
    },
  ),
  TRANSCRIPTION_MODEL: text(
    {
      group,
      description:
        "speech-to-text model for voice notes, audio and video notes, called at an OpenAI-compatible `/audio/transcriptions` with `OPENAI_API_KEY`; `off` turns transcription off",
    },
    { fallback: "gpt-4o-mini-transcribe", maxLength: 200 },
  ),
  TRANSCRIPTION_BASE_URL: url({
    kind: "variable",
    group,
    description: "the transcription API root (empty: `OPENAI_BASE_URL`, else OpenAI's); `OPENAI_API_KEY` is sent there",
  }),
  IMAGE_MODEL: text(
    {
      group,
      description:
        "images model for `generate_image` (OpenAI Images API at `OPENAI_BASE_URL`, e.g. `gpt-image-1`); empty: the tool is not offered",
    },
    { maxLength: 200 },
  ),
} as const;
