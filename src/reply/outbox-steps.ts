import type { OutboxParcel, OutboxStep } from "../store/outbox-store.ts";
import type { Keyboard, TelegramClient } from "../telegram/client.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";
import { type RenderedPiece, renderOne, renderPieces } from "../telegram/render.ts";
import { splitMessage } from "../telegram/split.ts";

/** Markdown as new messages of Telegram HTML (split at 4,096 characters), the first replying where asked. */
export function htmlParcel(target: ChatTarget, markdown: string, replyTo?: number): OutboxParcel {
  return { target, steps: sendSteps(renderPieces(markdown), replyTo) };
}

/** A menu: Markdown as one message of Telegram HTML with buttons under it. */
export function menuParcel(target: ChatTarget, markdown: string, keyboard: Keyboard): OutboxParcel {
  return { target, steps: [{ kind: "send", piece: renderOne(markdown), keyboard }] };
}

/** A photo, by a reference to its bytes (in memory now, in the media bucket later), described if both are gone. */
export function photoParcel(
  target: ChatTarget,
  photo: { ref: string; key?: string | undefined; fileName: string; caption?: string | undefined },
): OutboxParcel {
  const described = `🖼 A picture was made for you here${photo.caption ? ` (“${photo.caption.slice(0, 300)}”)` : ""}, but it could not be delivered and was not kept.`;
  return {
    target,
    steps: [
      {
        kind: "send-photo",
        ref: photo.ref,
        fileName: photo.fileName,
        described,
        ...(photo.key === undefined ? {} : { key: photo.key }),
        ...(photo.caption === undefined ? {} : { caption: photo.caption.slice(0, 1024) }),
      },
    ],
  };
}

/** Plain text as new messages (split at 4,096 characters): notices, which are not Markdown. */
export function plainParcel(target: ChatTarget, text: string): OutboxParcel {
  return { target, steps: sendSteps(splitMessage(text).map((piece) => ({ piece }))) };
}

/**
 * A rich answer as new rich messages, falling back to `whole` (its HTML path's Markdown) if Telegram refuses the
 * rich form before any of them went.
 */
export function richParcel(
  target: ChatTarget,
  pieces: readonly string[],
  whole: string,
  replyTo?: number,
): OutboxParcel {
  return {
    target,
    steps: pieces.map((markdown, index) => ({
      kind: "send-rich",
      markdown,
      ...(index === 0 && replyTo !== undefined ? { replyTo } : {}),
    })),
    rich: { whole, ...(replyTo === undefined ? {} : { replyTo }), streamed: [], sentAny: false },
  };
}

function sendSteps(pieces: readonly RenderedPiece[], replyTo?: number): OutboxStep[] {
  return pieces.map((piece, index) => ({
    kind: "send",
    piece,
    ...(index === 0 && replyTo !== undefined ? { replyTo } : {}),
  }));
}

/** Whether a step makes a new message (whose repetition would show twice), rather than an edit or a deletion. */
export function isSend(step: OutboxStep): boolean {
  return step.kind === "send" || step.kind === "send-rich" || step.kind === "send-photo";
}

/** Where a photo step's bytes are found: in memory (its first send), else the media bucket, else nowhere. */
export type PhotoBytes = (step: { ref: string; key?: string | undefined }) => Promise<Uint8Array | undefined>;

/** One step, as one Bot API call (through `telegram`, with or without its retries). Throws what the call threw. */
export async function perform(
  telegram: TelegramClient,
  target: ChatTarget,
  step: OutboxStep,
  photoBytes?: PhotoBytes,
): Promise<void> {
  switch (step.kind) {
    case "send":
      await telegram.sendPiece(target, step.piece, {
        ...replyOf(step),
        ...(step.keyboard === undefined ? {} : { keyboard: step.keyboard }),
      });
      return;
    case "send-photo": {
      const bytes = await photoBytes?.(step);
      if (bytes === undefined) await telegram.sendPiece(target, { piece: step.described });
      else {
        await telegram.sendPhoto(target, {
          bytes,
          fileName: step.fileName,
          ...(step.caption === undefined ? {} : { caption: step.caption }),
        });
      }
      return;
    }
    case "send-rich":
      await telegram.sendRich(target, step.markdown, replyOf(step));
      return;
    case "edit":
      await telegram.editPiece(target, step.messageId, step.piece);
      return;
    case "edit-rich":
      await telegram.editRich(target, step.messageId, step.markdown);
      return;
    case "delete":
      await telegram.deleteMessage(target, step.messageId);
      return;
  }
}

/** The parcel after its first step went through (undefined when that was the last). */
export function afterFirst(parcel: OutboxParcel): OutboxParcel | undefined {
  const [done, ...rest] = parcel.steps;
  if (done === undefined || rest.length === 0) return undefined;
  const { rich } = parcel;
  return {
    target: parcel.target,
    steps: rest,
    ...(rich ? { rich: { ...rich, sentAny: rich.sentAny || isSend(done) } } : {}),
  };
}

/** The parcel with its first step replaced (an edit Telegram refused becomes a new message). */
export function withFirst(parcel: OutboxParcel, step: OutboxStep): OutboxParcel {
  return { ...parcel, steps: [step, ...parcel.steps.slice(1)] };
}

/**
 * What a refused edit becomes: the same content as a new message (the message to edit is gone, or can no longer be
 * edited); a refused deletion becomes nothing.
 */
export function insteadOfEdit(step: OutboxStep): OutboxStep | undefined {
  switch (step.kind) {
    case "edit":
      return { kind: "send", piece: step.piece };
    case "edit-rich":
      return { kind: "send-rich", markdown: step.markdown };
    case "delete":
      return undefined;
    case "send":
    case "send-rich":
    case "send-photo":
      return step;
  }
}

/**
 * The parcel on the HTML path, after Telegram refused the rich form: while none of a rich answer's new messages went,
 * the streamed rich messages it replaces are deleted and the whole answer goes as HTML (replying where the answer
 * would have); once one went, the rest of its rich pieces go as HTML. Never two copies of what already arrived.
 */
export function htmlInstead(parcel: OutboxParcel): OutboxParcel | undefined {
  const { rich, target } = parcel;
  if (rich && !rich.sentAny) {
    const steps: OutboxStep[] = [
      ...rich.streamed.map((messageId) => ({ kind: "delete" as const, messageId })),
      ...sendSteps(renderPieces(rich.whole), rich.replyTo),
    ];
    return steps.length === 0 ? undefined : { target, steps };
  }
  const richSends = parcel.steps.filter((step) => step.kind === "send-rich" || step.kind === "edit-rich");
  const rest = parcel.steps.filter((step) => step.kind !== "send-rich" && step.kind !== "edit-rich");
  const markdown = richSends.map((step) => step.markdown).join("\n\n");
  const first = parcel.steps.find((step) => step.kind === "send-rich");
  const replyTo = first?.kind === "send-rich" ? first.replyTo : undefined;
  const steps = [...(markdown.trim() === "" ? [] : sendSteps(renderPieces(markdown), replyTo)), ...rest];
  return steps.length === 0 ? undefined : { target, steps };
}

function replyOf(step: { replyTo?: number }): { replyToMessageId?: number } {
  return step.replyTo === undefined ? {} : { replyToMessageId: step.replyTo };
}
