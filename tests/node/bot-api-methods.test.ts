import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { METHODS_JSON, methodTableJson, readMethodTable } from "../../scripts/bot-api/generate-methods.ts";

describe("the Bot API's methods and fields the fakes check against", () => {
  it("are those of the installed @grammyjs/types (run node scripts/bot-api/generate-methods.ts after an update)", () => {
    const table = readMethodTable();
    expect(readFileSync(METHODS_JSON, "utf8")).toBe(methodTableJson(table));
    // Bot API 10.3: rich messages and their drafts, with the stop control.
    expect(Object.keys(table.methods)).toEqual(expect.arrayContaining(["sendRichMessage", "sendRichMessageDraft"]));
    expect(table.methods.sendMessageDraft).toHaveProperty("can_stop");
    expect(table.methods.editMessageText).toHaveProperty("rich_message");
  });
});
