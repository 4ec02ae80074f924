import { describe, expect, it } from "vitest";
import { userPartsOf, withFilesAsText } from "../../../src/adapters/media-parts.ts";
import { documentKind } from "../../../src/media/document-kind.ts";
import { pickPhotoSize } from "../../../src/media/photo-size.ts";
import { seesImages } from "../../../src/media/vision.ts";
import { historyMessageSchema, type UserMessage } from "../../../src/protocol/messages.ts";

const image = { kind: "image" as const, key: "telegram/a", mediaType: "image/jpeg", size: 10 };

describe("neutral user messages", () => {
  it("reads history rows written before attachments existed", () => {
    expect(historyMessageSchema.parse({ role: "user", content: "hi" })).toEqual({ role: "user", content: "hi" });
  });

  it("put files before the text, and say why a file is not shown", () => {
    const message: UserMessage = { role: "user", content: "what is this?", attachments: [image] };
    const library = new Map([["telegram/a", { kind: "inline" as const, base64: "AAA" }]]);
    expect(userPartsOf(message, library)).toEqual([
      { type: "image", mediaType: "image/jpeg", base64: "AAA" },
      { type: "text", text: "what is this?" },
    ]);
    expect(userPartsOf(message, new Map())).toEqual([
      { type: "text", text: "[an image: the file is no longer available]\nwhat is this?" },
    ]);
  });

  it("become text for the agent, transcripts included", () => {
    const message: UserMessage = {
      role: "user",
      content: "and this?",
      attachments: [
        image,
        {
          kind: "transcript",
          mediaType: "audio/ogg",
          size: 1,
          source: "voice",
          text: "hello",
          transcribedBy: "telegram",
        },
      ],
    };
    expect(withFilesAsText([message], "files are not passed to the agent")).toEqual([
      {
        role: "user",
        content:
          "[an image: files are not passed to the agent]\n[a voice note; automatic transcript, may contain errors]: hello\nand this?",
      },
    ]);
  });
});

describe("photo sizes", () => {
  const sizes = [
    { id: "s", width: 90, height: 60 },
    { id: "m", width: 800, height: 533 },
    { id: "l", width: 2560, height: 1706 },
  ];
  it("take the largest within the edge", () => expect(pickPhotoSize(sizes, 1568)?.id).toBe("m"));
  it("take the smallest when none fits", () => expect(pickPhotoSize(sizes, 50)?.id).toBe("s"));
});

describe("document kinds and vision models", () => {
  it("tell PDFs, text and other files apart", () => {
    expect(documentKind("application/pdf", "a.bin")).toBe("pdf");
    expect(documentKind("application/octet-stream", "main.py")).toBe("text");
    expect(documentKind("text/csv", "people")).toBe("text");
    expect(documentKind("application/zip", "a.zip")).toBe("other");
  });
  it("match model names by pattern, ignoring case", () => {
    expect(seesImages(["gpt-4o*", "claude-*"], "GPT-4o-mini")).toBe(true);
    expect(seesImages(["gpt-4o*"], "gpt-3.5-turbo")).toBe(false);
  });
});
