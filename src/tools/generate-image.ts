import * as z from "zod";
import { generateImage, ImageGenerationError } from "../media/generate-image.ts";
import { defineTool, ToolError } from "./registry.ts";

export const generateImageTool = defineTool({
  name: "generate_image",
  description:
    "Draw an image from a description and send it to this chat as a photo. Describe the picture fully (subject, " +
    "style, composition); the image is sent by the tool itself, so do not repeat it, just say a short word about it.",
  schema: z.object({
    prompt: z.string().trim().min(1).max(4000).describe("What to draw, in detail."),
    size: z
      .enum(["1024x1024", "1536x1024", "1024x1536", "auto"])
      .optional()
      .describe("Square, landscape or portrait (default: the model's choice)."),
    caption: z.string().max(1024).optional().describe("A short caption under the photo."),
  }),
  // Off unless an images model is configured (and there is a key to call it with).
  available: (settings) => settings.imageModel !== undefined && settings.openaiApiKey !== undefined,
  async handler({ prompt, size, caption }, context) {
    const { settings } = context;
    if (!settings.imageModel || !settings.openaiApiKey) throw new ToolError("Image generation is not configured.");
    // Each image is paid for: per-message and daily caps, and the chat's budget, are asked first.
    // Held before the call, so that calls running at once (an agent's) cannot pass the caps together.
    const reserved = context.paid.reserve("image", 1);
    if ("refused" in reserved) throw new ToolError(reserved.refused);
    let image: { bytes: Uint8Array; mediaType: string };
    try {
      image = await generateImage({
        apiKey: settings.openaiApiKey,
        baseUrl: settings.openaiBaseUrl,
        model: settings.imageModel,
        prompt,
        size,
        timeoutMs: settings.providerTimeoutMs,
      });
    } catch (error) {
      reserved.held.release();
      if (error instanceof ImageGenerationError) throw new ToolError(`The image could not be made: ${error.message}`);
      throw error;
    }
    reserved.held.settle();
    const extension = image.mediaType.split("/")[1] ?? "png";
    const key = await context.storeGenerated(image.bytes, image.mediaType);
    await context.sendPhoto({
      bytes: image.bytes,
      fileName: `image.${extension}`,
      key,
      ...(caption ? { caption } : {}),
    });
    return {
      content: `The image was generated and sent to the chat as a photo${key ? ` (stored as ${key})` : ""}. Do not send it again.`,
    };
  },
});
