import { Buffer } from "node:buffer";
import type { ImagesResponse } from "openai/resources/images";
import { redactSecrets } from "../lib/redact.ts";

export interface ImageRequest {
  apiKey: string;
  /** An OpenAI-compatible API root (…/v1); undefined: OpenAI's. */
  baseUrl: string | undefined;
  model: string;
  prompt: string;
  size: string | undefined;
  timeoutMs: number;
}

export class ImageGenerationError extends Error {
  override readonly name = "ImageGenerationError";
}

/**
 * One image from an OpenAI-compatible `POST /images/generations`, as a plain `fetch`. `gpt-image-*` models always
 * answer base64; DALL·E models are asked for base64, so no second download is needed (a URL answer is fetched).
 */
export async function generateImage(request: ImageRequest): Promise<{ bytes: Uint8Array; mediaType: string }> {
  const url = `${(request.baseUrl ?? "https://api.openai.com/v1").replace(/\/+$/, "")}/images/generations`;
  const body = {
    model: request.model,
    prompt: request.prompt,
    n: 1,
    ...(request.size ? { size: request.size } : {}),
    ...(request.model.startsWith("dall-e") ? { response_format: "b64_json" } : {}),
  };
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${request.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(request.timeoutMs),
    });
  } catch (error) {
    throw new ImageGenerationError(
      `the images API did not answer (${error instanceof Error ? error.name : "network"})`,
    );
  }
  if (!response.ok) {
    const detail = await response.text().catch(() => "");
    throw new ImageGenerationError(
      `the images API refused (HTTP ${response.status}): ${redactSecrets(detail).slice(0, 300)}`,
    );
  }
  const answer = (await response.json().catch(() => undefined)) as ImagesResponse | undefined;
  const image = answer?.data?.[0];
  if (image?.b64_json) {
    const format = answer?.output_format ?? "png";
    return { bytes: new Uint8Array(Buffer.from(image.b64_json, "base64")), mediaType: `image/${format}` };
  }
  if (image?.url) {
    const download = await fetch(image.url, { signal: AbortSignal.timeout(request.timeoutMs) });
    if (!download.ok)
      throw new ImageGenerationError(`the generated image could not be downloaded (HTTP ${download.status})`);
    return {
      bytes: new Uint8Array(await download.arrayBuffer()),
      mediaType: download.headers.get("content-type") ?? "image/png",
    };
  }
  throw new ImageGenerationError("the images API answered without an image");
}
