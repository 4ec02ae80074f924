import { describe, expect, it } from "vitest";
import type { IncomingMessage } from "../../../src/telegram/incoming-message.ts";
import { answering, joinedTurn, joinedWithoutFiles } from "../../../src/turn/joined-turn.ts";
import type { AdmittedTurn } from "../../../src/turn/turn-request.ts";

function groupMessage(id: number, fromId: number, text: string, extra: Partial<IncomingMessage> = {}): IncomingMessage {
  return {
    updateId: id,
    messageId: id,
    chat: { id: -2001, type: "group", isForum: false },
    from: { id: fromId, name: `user ${fromId}` },
    text,
    date: 1,
    ...extra,
  };
}

describe("a turn that messages joined", () => {
  const first = groupMessage(10, 1001, "@testbot hi");
  const turn: AdmittedTurn = {
    kind: "chat",
    input: { kind: "telegram", messages: [first] },
    inboxIds: [1],
    ...answering([first]),
    users: [{ role: "user", content: "user 1001: @testbot hi" }],
  };

  it("answers the last message, for every sender, with every row", () => {
    const late = groupMessage(11, 501, "@testbot what's the time?");
    const joined = joinedTurn(turn, [{ inboxId: 2, message: late }], [{ role: "user", content: "user 501: late" }]);
    expect(joined.inboxIds).toEqual([1, 2]);
    expect(joined.senders).toEqual([1001, 501]);
    expect(joined.messageId).toBe(11);
    expect(joined.replyToMessageId).toBe(11);
    expect(joined.users.map((user) => user.content)).toEqual(["user 1001: @testbot hi", "user 501: late"]);
    expect(joined.input).toEqual({ kind: "telegram", messages: [first, late] });
    expect(joined.spokenTo).toBeUndefined();
  });

  it("is spoken to when a voice note joins it", () => {
    const voice = groupMessage(12, 1001, "", {
      media: [
        { kind: "recording", source: "voice", file: { fileId: "v", fileUniqueId: "vu" }, mediaType: "audio/ogg" },
      ],
    });
    expect(joinedTurn(turn, [{ inboxId: 3, message: voice }], []).spokenTo).toBe(true);
  });

  it("keeps a message that joined as the turn was stopped, its files not read", () => {
    const photo = groupMessage(13, 501, "look", {
      media: [{ kind: "photo", mediaType: "image/jpeg", sizes: [{ fileId: "p", fileUniqueId: "pu" }] }],
    });
    const joined = joinedWithoutFiles(turn, [{ inboxId: 4, message: photo }]);
    expect(joined.inboxIds).toEqual([1, 4]);
    expect(joined.users.at(-1)?.content).toBe("[a photo, not read]\nuser 501 (id 501): look");
  });

  it("is the same turn when nothing joined", () => {
    expect(joinedTurn(turn, [], [])).toBe(turn);
  });
});
