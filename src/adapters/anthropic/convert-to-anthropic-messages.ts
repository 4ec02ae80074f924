import type { ContentBlockParam, MessageParam } from "@anthropic-ai/sdk/resources/messages/messages";
import { type HistoryMessage, parseToolArguments } from "../../protocol/messages.ts";
import { isPlainText, type MediaLibrary, type UserPart, userPartsOf } from "../media-parts.ts";

/**
 * Neutral history to Messages API turns: tool calls become `tool_use` blocks, tool results `tool_result` blocks in a
 * user turn, and neighbouring messages of one role are merged, since the API wants the roles to alternate.
 */
export function toAnthropicMessages(history: readonly HistoryMessage[], media?: MediaLibrary): MessageParam[] {
  const turns: { role: "user" | "assistant"; content: ContentBlockParam[] }[] = [];
  const add = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last && last.role === role) {
      // tool_result blocks must open a user turn, before any text.
      const results = blocks.filter((block) => block.type === "tool_result");
      const others = blocks.filter((block) => block.type !== "tool_result");
      const firstText = last.content.findIndex((block) => block.type !== "tool_result");
      if (results.length > 0 && firstText >= 0) last.content.splice(firstText, 0, ...results);
      else last.content.push(...results);
      last.content.push(...others);
    } else {
      turns.push({ role, content: [...blocks] });
    }
  };
  for (const message of history) {
    switch (message.role) {
      case "user":
        if (isPlainText(message)) {
          add("user", message.content.trim() === "" ? [] : [{ type: "text", text: message.content }]);
        } else {
          add("user", userPartsOf(message, media).flatMap(toAnthropicBlock));
        }
        break;
      case "assistant": {
        const blocks: ContentBlockParam[] =
          message.content.trim() === "" ? [] : [{ type: "text", text: message.content }];
        for (const call of message.toolCalls ?? []) {
          blocks.push({
            type: "tool_use",
            id: anthropicId(call.id),
            name: call.name,
            input: parseToolArguments(call.arguments),
          });
        }
        add("assistant", blocks);
        break;
      }
      case "tool":
        add("user", [
          {
            type: "tool_result",
            tool_use_id: anthropicId(message.toolCallId),
            content: message.content,
            ...(message.isError ? { is_error: true } : {}),
          },
        ]);
        break;
    }
  }
  return turns;
}

const IMAGE_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"] as const;
type AnthropicImageType = (typeof IMAGE_TYPES)[number];

function isAnthropicImageType(mediaType: string): mediaType is AnthropicImageType {
  return (IMAGE_TYPES as readonly string[]).includes(mediaType);
}

/** Images as base64 image blocks, PDFs as base64 document blocks; an image type the API does not take says so. */
function toAnthropicBlock(part: UserPart): ContentBlockParam[] {
  switch (part.type) {
    case "text":
      return part.text.trim() === "" ? [] : [{ type: "text", text: part.text }];
    case "image":
      if (!isAnthropicImageType(part.mediaType)) {
        return [{ type: "text", text: `[an image in ${part.mediaType}, a format this model does not read]` }];
      }
      return [{ type: "image", source: { type: "base64", media_type: part.mediaType, data: part.base64 } }];
    case "pdf":
      return [
        {
          type: "document",
          title: part.fileName,
          source: { type: "base64", media_type: "application/pdf", data: part.base64 },
        },
      ];
  }
}

/** Tool call ids from other providers may hold characters the Messages API refuses; map them the same way twice. */
function anthropicId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, "_");
}
