/**
 * What the fake OpenAI and Anthropic APIs serve at `GET /v1/models`, and the models they have retired: a call naming
 * one is refused as the real APIs refuse it (404; OpenAI's `model_not_found` with its words, Anthropic's
 * `not_found_error` with `model: <name>`), whatever is scripted.
 */
export const SERVED_MODELS = {
  openai: ["gpt-test", "gpt-5-mini", "gpt-5", "text-embedding-3-small", "gpt-4o-mini-tts", "whisper-1", "gpt-image-1"],
  anthropic: ["claude-sonnet-5", "claude-haiku-4-5", "claude-sonnet-4-5"],
} as const;

export const RETIRED_MODELS = {
  openai: ["gpt-4.5-preview"],
  anthropic: ["claude-3-5-sonnet-20241022"],
} as const;

/** `GET /v1/models` as each API answers it, or undefined when the path is not the models list. */
export function modelsList(service: string, method: string, pathname: string): unknown {
  if (method !== "GET" || !pathname.endsWith("/v1/models")) return undefined;
  if (service === "openai") {
    return {
      object: "list",
      data: SERVED_MODELS.openai.map((id) => ({ id, object: "model", created: 1_790_000_000, owned_by: "openai" })),
    };
  }
  if (service === "anthropic") {
    const data = SERVED_MODELS.anthropic.map((id) => ({
      type: "model",
      id,
      display_name: id,
      created_at: "2026-09-01T00:00:00Z",
    }));
    return { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
  }
  return undefined;
}

/** The refusal of a call to a retired model (404), or undefined. */
export function retiredRefusal(service: string, body: unknown): unknown {
  const model = (body as { model?: unknown } | undefined)?.model;
  if (typeof model !== "string") return undefined;
  if (service === "openai" && (RETIRED_MODELS.openai as readonly string[]).includes(model)) {
    return {
      error: {
        message: `The model \`${model}\` does not exist or you do not have access to it.`,
        type: "invalid_request_error",
        param: null,
        code: "model_not_found",
      },
    };
  }
  if (service === "anthropic" && (RETIRED_MODELS.anthropic as readonly string[]).includes(model)) {
    return { type: "error", error: { type: "not_found_error", message: `model: ${model}` } };
  }
  return undefined;
}
