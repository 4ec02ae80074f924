import type { MediaContent, MediaLibrary } from "../adapters/media-parts.ts";
import type { MediaSettings } from "../config/settings.ts";
import type { Attachment, HistoryMessage } from "../protocol/messages.ts";
import { documentKind } from "./document-kind.ts";
import type { MediaShelf } from "./shelf.ts";
import { toBase64 } from "./store.ts";
import { seesImages } from "./vision.ts";

export interface MediaPlanInput {
  shelf: MediaShelf | undefined;
  history: readonly HistoryMessage[];
  /** Where this turn's new messages start in `history`: what is left out of them is said in the chat. */
  newFrom: number;
  model: string;
  media: MediaSettings;
  /**
   * Characters of earlier files' text the model call still has room for, after the window's own messages: files
   * count in the window, so a chat that sent long files does not resend them whole on every later turn.
   */
  textRoom: number;
}

/** An earlier turn's text file is shown again as this much of its start (it was read in full when it was sent). */
const EARLIER_FILE_EXCERPT = 2_000;

export interface MediaPlan {
  library: MediaLibrary;
  /** Lines for the chat about this turn's own files that the model does not get. */
  notices: string[];
}

type Located = { attachment: Attachment & { key: string }; fresh: boolean };

/**
 * Decides, before a model call, what the model gets of each file in the window and loads it from R2: the most
 * recent `maxImagesPerTurn` images and PDFs as bytes (when the model sees images), text-like documents as text up to
 * a cap, and for everything else a reason the adapters put into words. Transcripts are text in history already.
 */
export async function planMedia(input: MediaPlanInput): Promise<MediaPlan> {
  const { shelf, media } = input;
  const library = new Map<string, MediaContent>();
  const notices: string[] = [];
  const located: Located[] = input.history.flatMap((message, index) =>
    message.role === "user"
      ? (message.attachments ?? []).flatMap((attachment) =>
          attachment.kind === "transcript" ? [] : [{ attachment, fresh: index >= input.newFrom }],
        )
      : [],
  );
  if (located.length === 0) return { library, notices };
  if (!shelf) {
    for (const { attachment } of located)
      library.set(attachment.key, { kind: "omitted", reason: "file storage is not set up" });
    if (located.some((item) => item.fresh))
      notices.push("📎 This bot has no file storage set up, so I can't read files.");
    return { library, notices };
  }

  const vision = seesImages(media.visionModels, input.model);
  const visual = located.filter(
    ({ attachment }) =>
      attachment.kind === "image" ||
      (attachment.kind === "document" && documentKind(attachment.mediaType, attachment.fileName) === "pdf"),
  );
  if (!vision) {
    for (const { attachment } of visual) {
      library.set(attachment.key, {
        kind: "omitted",
        reason: `this chat's model (${input.model}) cannot see images or read PDFs, so it is not shown`,
      });
    }
    if (visual.some((item) => item.fresh)) {
      notices.push(
        `🖼 This chat's model, ${input.model}, can't see images or read PDFs, so I only have your words. An admin can switch to a model that can (/provider).`,
      );
    }
  } else {
    const shown = visual.slice(Math.max(0, visual.length - media.maxImagesPerTurn));
    const hidden = visual.slice(0, visual.length - shown.length);
    for (const { attachment } of hidden) {
      library.set(attachment.key, {
        kind: "omitted",
        reason: `an earlier file, not shown again (a turn shows the ${media.maxImagesPerTurn} most recent)`,
      });
    }
    const hiddenFresh = hidden.filter((item) => item.fresh).length;
    if (hiddenFresh > 0) {
      notices.push(
        `🖼 I look at ${media.maxImagesPerTurn} images or PDFs at a time, so ${hiddenFresh} of yours ${hiddenFresh === 1 ? "is" : "are"} kept but not shown to the model. Send them in smaller groups if they all matter.`,
      );
    }
    await Promise.all(
      shown.map(async ({ attachment }) => {
        const bytes = await shelf.get(attachment.key);
        if (bytes) library.set(attachment.key, { kind: "inline", base64: toBase64(bytes) });
      }),
    );
  }

  await loadTexts(located, { shelf, library, perTurnChars: media.documentTextMaxChars, textRoom: input.textRoom });
  for (const { attachment, fresh } of located) {
    if (attachment.kind !== "document") continue;
    const kind = documentKind(attachment.mediaType, attachment.fileName);
    if (kind === "other") {
      library.set(attachment.key, { kind: "omitted", reason: "a kind of file this bot cannot read" });
      if (fresh) {
        notices.push(
          `📎 I can't read "${attachment.fileName}" (${attachment.mediaType}): I read PDFs, images and text files (txt, md, csv, json, code).`,
        );
      }
    }
  }
  return { library, notices };
}

/**
 * This turn's own text files share the per-turn cap (newest first). An earlier turn's file counts in the window: it
 * gets an excerpt from the room the window's messages leave, or a line saying it is not shown again.
 */
async function loadTexts(
  located: readonly Located[],
  into: {
    shelf: NonNullable<MediaPlanInput["shelf"]>;
    library: Map<string, MediaContent>;
    perTurnChars: number;
    textRoom: number;
  },
): Promise<void> {
  const texts = located.filter(
    ({ attachment }) =>
      attachment.kind === "document" && documentKind(attachment.mediaType, attachment.fileName) === "text",
  );
  const rooms = { fresh: into.perTurnChars, earlier: Math.max(0, into.textRoom) };
  for (const { attachment, fresh } of [
    ...texts.filter((item) => item.fresh).reverse(),
    ...texts.filter((item) => !item.fresh).reverse(),
  ]) {
    const room = fresh ? rooms.fresh : rooms.earlier;
    const cap = fresh ? room : Math.min(EARLIER_FILE_EXCERPT, room);
    if (cap < 200) {
      into.library.set(attachment.key, {
        kind: "omitted",
        reason: fresh
          ? "this message's files together are longer than one turn reads"
          : "an earlier file, not shown again: the conversation has no room for it (ask for it to be sent again)",
      });
      continue;
    }
    const bytes = await into.shelf.get(attachment.key);
    if (!bytes) continue;
    const text = textOf(bytes, cap, fresh ? "" : " (an earlier file, read in full when it was sent)");
    if (fresh) rooms.fresh -= text.length;
    else rooms.earlier -= text.length;
    into.library.set(attachment.key, { kind: "text", text });
  }
}

function textOf(bytes: ArrayBuffer, maxChars: number, why: string): string {
  const text = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false }).decode(bytes);
  return text.length <= maxChars
    ? text
    : `${text.slice(0, maxChars)}\n[cut${why}: the file has ${text.length.toLocaleString("en-US")} characters; the first ${maxChars.toLocaleString("en-US")} are shown]`;
}
