import { markdownToTelegramHtml, rendersNothing, visibleLength } from "./format.ts";
import { CUT_NOTE, cutText, MAX_PIECES, splitMessage, TELEGRAM_MESSAGE_LIMIT, withShortInfoStrings } from "./split.ts";

/** One message's worth of an answer: its Markdown, and its Telegram HTML when it renders within the limit. */
export interface RenderedPiece {
  piece: string;
  html?: string;
}

/**
 * Markdown pieces with their HTML, each within the limit once rendered. Pieces are cut by their Markdown length;
 * rendering can make one longer (a list numbered `1.` throughout is renumbered), so such a piece is cut again,
 * smaller. A piece that renders to no text (an empty code block), or still does not fit, goes as plain text (`html`
 * undefined): Telegram refuses an empty message. An over-long fence info string is cut to its language first.
 */
export function renderPieces(markdown: string, limit = TELEGRAM_MESSAGE_LIMIT): RenderedPiece[] {
  const pieces = renderAll(withShortInfoStrings(markdown), limit);
  return pieces.length <= MAX_PIECES ? pieces : [...pieces.slice(0, MAX_PIECES - 1), { piece: CUT_NOTE }];
}

/** A short Markdown text (a menu, a notice) as one piece: its HTML when it fits one message, else its plain text. */
export function renderOne(markdown: string): RenderedPiece {
  const html = markdownToTelegramHtml(markdown);
  return !rendersNothing(html) && visibleLength(html) <= TELEGRAM_MESSAGE_LIMIT
    ? { piece: markdown, html }
    : { piece: cutText(markdown, TELEGRAM_MESSAGE_LIMIT) };
}

function renderAll(markdown: string, limit: number): RenderedPiece[] {
  return splitMessage(markdown, limit).flatMap((piece) => {
    const html = markdownToTelegramHtml(piece);
    if (rendersNothing(html)) return [{ piece }];
    if (visibleLength(html) <= TELEGRAM_MESSAGE_LIMIT) return [{ piece, html }];
    if (limit > 1000 && piece.length > 1000) return renderAll(piece, Math.floor(limit * 0.7));
    return [{ piece }];
  });
}
