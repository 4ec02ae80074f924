import { afterAll, describe, expect, it } from "vitest";
import { checkFormattedText } from "../../scripts/bot-api/formatted-text.ts";
import { startTdlib } from "../../scripts/bot-api/tdlib.ts";
import { markdownToTelegramHtml } from "../../src/telegram/format.ts";
import { renderPieces } from "../../src/telegram/render.ts";
import { CUT_NOTE, splitMessage, TELEGRAM_MESSAGE_LIMIT } from "../../src/telegram/split.ts";
import { firstMissingWord, generateAnswer } from "../fakes/answers.ts";

/**
 * The bot's renderer and splitters (src/telegram/format.ts, split.ts, renderPieces in render.ts) against Telegram's
 * own parser, over thousands of generated answers: every piece they make is one Telegram accepts (TDLib parses its
 * HTML, it is not empty, it fits), and every word the model wrote is in what would be delivered.
 */
const parser = await startTdlib();
const tdlib = parser.status;
if (!tdlib.available) console.warn(`[telegram rendering] skipped: TDLib's parser is not available (${tdlib.reason})`);
afterAll(() => parser.close());

const ANSWERS = 5000;

/** What Telegram makes of one piece as the bot sends it, or its refusal. */
async function deliver(piece: { piece: string; html?: string }): Promise<{ text: string } | { refusal: string }> {
  const checked = await checkFormattedText(parser, {
    text: piece.html ?? piece.piece,
    parseMode: piece.html === undefined ? undefined : "HTML",
    use: "send",
  });
  return checked.ok ? { text: checked.text } : { refusal: checked.refusal.description };
}

function shown(markdown: string): string {
  return JSON.stringify(markdown.length > 400 ? `${markdown.slice(0, 300)} … ${markdown.slice(-100)}` : markdown);
}

describe.skipIf(!tdlib.available)("rendering for Telegram, checked by TDLib's parser", () => {
  it(`turns ${ANSWERS} generated answers into pieces Telegram accepts, losing no word`, async () => {
    const failures: string[] = [];
    let pieces = 0;
    for (let seed = 1; seed <= ANSWERS && failures.length < 10; seed++) {
      const markdown = generateAnswer(seed);
      const rendered = renderPieces(markdown, TELEGRAM_MESSAGE_LIMIT);
      pieces += rendered.length;
      const delivered: string[] = [];
      for (const [index, piece] of rendered.entries()) {
        const outcome = await deliver(piece);
        if ("refusal" in outcome) {
          failures.push(`seed ${seed}, piece ${index + 1}/${rendered.length}: ${outcome.refusal}; ${shown(markdown)}`);
          break;
        }
        delivered.push(outcome.text);
      }
      if (delivered.length < rendered.length) continue;
      const cut = delivered.at(-1)?.endsWith(CUT_NOTE) ?? false;
      const missing = firstMissingWord(markdown, delivered, { cut });
      if (missing !== undefined) failures.push(`seed ${seed}: "${missing}" never arrives; ${shown(markdown)}`);
    }
    expect(failures, `${failures.length} failures in ${pieces} pieces`).toEqual([]);
  });

  it("keeps a text that renders to nothing from becoming an empty message", async () => {
    for (const markdown of ["```\n```", "```very long info string that is not a language\n```", "<!-- -->"]) {
      for (const piece of renderPieces(markdown, TELEGRAM_MESSAGE_LIMIT)) {
        expect(await deliver(piece), JSON.stringify(markdown)).not.toHaveProperty("refusal");
      }
    }
  });

  it("never splits into pieces over the limit, whatever the limit", async () => {
    for (let seed = 1; seed <= 300; seed++) {
      const markdown = generateAnswer(seed * 31);
      for (const limit of [1024, 4096]) {
        for (const piece of splitMessage(markdown, limit)) expect(piece.length).toBeLessThanOrEqual(limit);
      }
    }
  });

  it("renders the model's HTML-looking text as text", async () => {
    const [parsed] = await parser.parse([{ text: markdownToTelegramHtml("a <b>b</b> & <script>"), mode: "HTML" }]);
    expect(parsed).toEqual({ ok: true, text: "a <b>b</b> & <script>", entities: [] });
  });
});
