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
  let earlierRoom = Math.max(0, input.textRoom);
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
    // An earlier turn's image or PDF is sent again only while the conversation is about it, and counts in the window.
    const asked = newText(input);
    for (const { attachment, fresh } of [...shown].reverse()) {
      if (fresh) continue;
      const cost = windowCharsOf(attachment);
      const why = !isAbout(asked, attachment)
        ? "an earlier file, not sent again: the conversation moved on (mention it to see it again)"
        : cost > earlierRoom
          ? "an earlier file, not sent again: the conversation has no room for it (ask for it to be sent again)"
          : undefined;
      if (why === undefined) earlierRoom -= cost;
      else library.set(attachment.key, { kind: "omitted", reason: why });
    }
    await Promise.all(
      shown.map(async ({ attachment }) => {
        if (library.has(attachment.key)) return;
        const bytes = await shelf.get(attachment.key);
        if (bytes) library.set(attachment.key, { kind: "inline", base64: toBase64(bytes) });
      }),
    );
  }

  await loadTexts(located, { shelf, library, perTurnChars: media.documentTextMaxChars, textRoom: earlierRoom });
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

/**
 * What an image or PDF takes of the window, in the window's characters (4 to a token): an image about 1,600 tokens
 * (a large one, scaled down by the provider), a PDF about 1,500 tokens a page, a page taken as 50 KB.
 */
function windowCharsOf(attachment: Attachment): number {
  const tokens =
    attachment.kind === "image"
      ? 1_600
      : 1_500 * Math.max(1, Math.ceil(("size" in attachment ? attachment.size : 0) / 50_000));
  return tokens * 4;
}

/** The words of this turn's new messages. */
function newText(input: MediaPlanInput): string {
  return input.history
    .slice(input.newFrom)
    .map((message) => (message.role === "user" ? message.content : ""))
    .join("\n")
    .toLowerCase();
}

const ABOUT_FILES =
  /\b(image|images|photo|photos|picture|pictures|pic|pics|screenshot|scan|pdf|pdfs|document|documents|file|files|attachment|attachments|page|pages|chart|diagram|table|slide|slides)\b/;

/** Whether the new messages are about a file: they name files in general, or this one by its name. */
function isAbout(text: string, attachment: Attachment): boolean {
  if (ABOUT_FILES.test(text)) return true;
  if (attachment.kind !== "document") return false;
  const name = attachment.fileName.toLowerCase().replace(/\.[a-z0-9]+$/, "");
  return name.length >= 3 && text.includes(name);
}

function textOf(bytes: ArrayBuffer, maxChars: number, why: string): string {
  const text = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false }).decode(bytes);
  return text.length <= maxChars
    ? text
    : `${text.slice(0, maxChars)}\n[cut${why}: the file has ${text.length.toLocaleString("en-US")} characters; the first ${maxChars.toLocaleString("en-US")} are shown]`;
}
