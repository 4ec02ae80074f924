import { describe, expect, it } from "vitest";
import {
  argumentsHash,
  confirmationKeyboard,
  confirmationPage,
  detailOf,
  pageCount,
} from "../../../src/turn/confirmation-view.ts";

describe("a confirmation's view", () => {
  it("shows every argument whole and the destination by name", () => {
    const text = `${"x".repeat(300)} https://phish.example`;
    const detail = detailOf({ tool: "send_message", args: { chatId: -5, text }, chatName: "Team room" });
    expect(detail).toContain("To: Team room (chat -5)");
    expect(detail).toContain(text);
  });

  it("fences a page with more backticks than the text holds, so the text cannot close it", () => {
    const page = confirmationPage({ header: "h", detail: "a ``` b", hash: "0123456789abcdef", page: 0 });
    expect(page).toContain("````\na ``` b\n````");
    expect(page).toContain("`01234567`");
  });

  it("pages a long text and offers arrows; the confirm button carries the hash", () => {
    const detail = "y".repeat(7000);
    expect(pageCount(detail)).toBe(3);
    const keyboard = confirmationKeyboard({ id: "abcdefabcdef", hash: "0123456789abcdef", page: 1, pages: 3 });
    expect(keyboard[0]![0]!.data).toBe("confirm:abcdefabcdef:0123456789abcdef");
    expect(keyboard[1]!.map((button) => button.data)).toEqual(["cpage:abcdefabcdef:0", "cpage:abcdefabcdef:2"]);
    for (const row of keyboard)
      for (const button of row) expect(new TextEncoder().encode(button.data).length).toBeLessThanOrEqual(64);
  });

  it("hashes the exact stored text", async () => {
    expect(await argumentsHash('{"a":1}')).toMatch(/^[0-9a-f]{16}$/);
    expect(await argumentsHash('{"a":1}')).not.toBe(await argumentsHash('{"a":2}'));
  });
});
