import { describe, expect, it } from "vitest";
import type { MediaSettings } from "../../../src/config/settings.ts";
import { planMedia } from "../../../src/media/load.ts";
import type { MediaShelf } from "../../../src/media/shelf.ts";
import type { HistoryMessage } from "../../../src/protocol/messages.ts";

/**
 * Issue 40.4 (second half): images and PDFs are re-sent only while the conversation is about them, and count in the
 * window. The review's attack: after one 300 KB PDF, three plain messages each sent ~411,000 characters.
 */
const PDF_KEY = "telegram-file/report";
const shelf = {
  get: async () => new Uint8Array(300_000).buffer,
} as unknown as MediaShelf;
const media = { visionModels: ["*"], maxImagesPerTurn: 4, documentTextMaxChars: 50_000 } as unknown as MediaSettings;

const pdfMessage: HistoryMessage = {
  role: "user",
  content: "here is the report",
  attachments: [
    { kind: "document", key: PDF_KEY, mediaType: "application/pdf", size: 300_000, fileName: "report.pdf" },
  ],
};

function plan(newest: string, textRoom = 60_000) {
  const history: HistoryMessage[] = [
    pdfMessage,
    { role: "assistant", content: "It is a sales report." },
    { role: "user", content: newest },
  ];
  return planMedia({ shelf, history, newFrom: 2, model: "gpt-test", media, textRoom });
}

describe("earlier images and PDFs", () => {
  it("are not re-sent with a plain message that is not about them", async () => {
    const { library } = await plan("thanks! what's the weather like?");
    expect(library.get(PDF_KEY)?.kind).toBe("omitted");
  });

  it("are re-sent when the new message is about them, if the window has room for them", async () => {
    expect((await plan("what does page 2 of the report say?")).library.get(PDF_KEY)?.kind).toBe("inline");
    expect((await plan("what does page 2 of the pdf say?", 1_000)).library.get(PDF_KEY)?.kind).toBe("omitted");
  });
});
