import { assertNever } from "../lib/errors.ts";
import type { Attachment, HistoryMessage, UserMessage } from "../protocol/messages.ts";

/**
 * What a model request gets for one stored file, decided before the call (see `src/media/load.ts`): its bytes
 * (an image or a PDF the model reads natively), its text (a text-like document), or a reason it is left out
 * (the model cannot see images, an older image past the per-turn cap, a type no model reads).
 */
export type MediaContent =
  | { kind: "inline"; base64: string }
  | { kind: "text"; text: string }
  | { kind: "omitted"; reason: string };

/** The request's files by R2 key. A key that is missing here is a file that is gone. */
export type MediaLibrary = ReadonlyMap<string, MediaContent>;

/** One piece of a user message as every provider can express it; each adapter maps these to its own blocks. */
export type UserPart =
  | { type: "text"; text: string }
  | { type: "image"; mediaType: string; base64: string }
  | { type: "pdf"; fileName: string; base64: string };

/** The parts of a user message: its files first (models read an image best before the question), then its text. */
export function userPartsOf(message: UserMessage, media: MediaLibrary | undefined): UserPart[] {
  const parts: UserPart[] = [];
  for (const attachment of message.attachments ?? []) parts.push(...attachmentParts(attachment, media));
  if (message.content.trim() !== "" || parts.length === 0) parts.push({ type: "text", text: message.content });
  return mergeTexts(parts);
}

/** Whether a user message is plain text, so that it can go as a plain string. */
export function isPlainText(message: UserMessage): boolean {
  return (message.attachments ?? []).length === 0;
}

function attachmentParts(attachment: Attachment, media: MediaLibrary | undefined): UserPart[] {
  switch (attachment.kind) {
    case "transcript":
      return [{ type: "text", text: transcriptText(attachment) }];
    case "image": {
      const content = media?.get(attachment.key);
      if (content?.kind === "inline")
        return [{ type: "image", mediaType: attachment.mediaType, base64: content.base64 }];
      return [{ type: "text", text: `[an image: ${reasonOf(content)}]` }];
    }
    case "document": {
      const content = media?.get(attachment.key);
      const label = `[file "${attachment.fileName}" (${attachment.mediaType}, ${sizeText(attachment.size)})`;
      if (content?.kind === "inline") {
        return [
          { type: "text", text: `${label}]` },
          { type: "pdf", fileName: attachment.fileName, base64: content.base64 },
        ];
      }
      if (content?.kind === "text") return [{ type: "text", text: `${label}:\n${content.text}\n[end of file]` }];
      return [{ type: "text", text: `${label}: ${reasonOf(content)}]` }];
    }
    default:
      return assertNever(attachment);
  }
}

/** A transcript is machine-made: the model is told so, and what was recorded. */
function transcriptText(attachment: Extract<Attachment, { kind: "transcript" }>): string {
  const what = { voice: "a voice note", audio: "an audio file", video_note: "a video note" }[attachment.source];
  const length = attachment.durationSeconds === undefined ? "" : `, ${Math.round(attachment.durationSeconds)} s long`;
  return `[${what}${length}; automatic transcript, may contain errors]: ${attachment.text}`;
}

function reasonOf(content: MediaContent | undefined): string {
  if (content === undefined) return "the file is no longer available";
  return content.kind === "omitted" ? content.reason : "not shown";
}

export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Neighbouring text parts as one, so that a provider sees one text block where a person wrote one message. */
function mergeTexts(parts: UserPart[]): UserPart[] {
  const merged: UserPart[] = [];
  for (const part of parts) {
    const last = merged.at(-1);
    if (part.type === "text" && last?.type === "text")
      merged[merged.length - 1] = { type: "text", text: `${last.text}\n${part.text}` };
    else merged.push(part);
  }
  return merged;
}

/**
 * History for a consumer that takes text only (the agent runner): each user message's files become lines saying what
 * they were and why they are not there; transcripts stay as their text.
 */
export function withFilesAsText(history: readonly HistoryMessage[], reason: string): HistoryMessage[] {
  return history.map((message) => {
    if (message.role !== "user" || isPlainText(message)) return message;
    const omitted = new Map<string, MediaContent>(
      (message.attachments ?? []).flatMap((attachment) =>
        attachment.key === undefined ? [] : [[attachment.key, { kind: "omitted", reason }] as const],
      ),
    );
    const text = userPartsOf(message, omitted)
      .map((part) => (part.type === "text" ? part.text : ""))
      .join("\n");
    return { role: "user", content: text };
  });
}
