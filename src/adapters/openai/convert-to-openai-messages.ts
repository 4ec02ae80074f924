import type { ChatCompletionContentPart, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { HistoryMessage } from "../../protocol/messages.ts";
import { isPlainText, type MediaLibrary, type UserPart, userPartsOf } from "../media-parts.ts";

/** The system prompt and the neutral history as Chat Completions messages. */
export function toOpenAIMessages(
  system: string,
  history: readonly HistoryMessage[],
  media?: MediaLibrary,
): ChatCompletionMessageParam[] {
  return [{ role: "system", content: system }, ...history.map((message) => toOpenAIMessage(message, media))];
}

/** One neutral message: tool calls as `tool_calls` (arguments verbatim), tool results as `tool` messages. */
export function toOpenAIMessage(message: HistoryMessage, media?: MediaLibrary): ChatCompletionMessageParam {
  switch (message.role) {
    case "user":
      if (isPlainText(message)) return { role: "user", content: message.content };
      return { role: "user", content: userPartsOf(message, media).map(toOpenAIPart) };
    case "assistant":
      if (!message.toolCalls?.length) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        content: message.content === "" ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: "function" as const,
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
  }
}

/** Images as data URLs (`image_url`), PDFs as inline file inputs (`file` with `file_data`). */
function toOpenAIPart(part: UserPart): ChatCompletionContentPart {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "image":
      return { type: "image_url", image_url: { url: `data:${part.mediaType};base64,${part.base64}` } };
    case "pdf":
      return {
        type: "file",
        file: { filename: part.fileName, file_data: `data:application/pdf;base64,${part.base64}` },
      };
  }
}
