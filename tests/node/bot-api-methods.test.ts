import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  METHODS_JSON,
  methodTableJson,
  readDelta,
  readMethodTable,
  readSpec,
} from "../../scripts/bot-api/generate-methods.ts";
import { applyDelta } from "../../scripts/bot-api/spec/apply-delta.ts";
import { basePackageVersion, readBaseSpec } from "../../scripts/bot-api/spec/base-spec.ts";
import type { Spec, SpecDelta } from "../../scripts/bot-api/spec/spec-format.ts";

describe("the Bot API's methods and fields the fakes check against", () => {
  it("are the base package's Bot API 10.3 with the 10.4-10.5 delta (run node scripts/bot-api/generate-methods.ts after changing either)", () => {
    const table = readMethodTable();
    expect(readFileSync(METHODS_JSON, "utf8")).toBe(methodTableJson(table));
    expect(table.source).toBe(
      "Bot API 10.5 (November 22, 2026): @gramio/types 10.3.1 (Bot API 10.3) and spec/bot-api-10.4-10.5.json",
    );
    // Bot API 10.3: rich messages and their drafts, with the stop control.
    expect(table.methods.sendMessageDraft).toHaveProperty("can_stop");
    expect(table.methods.editMessageText).toHaveProperty("rich_message");
    // 10.4: widgets, and ephemeral replies to a button press without chat_id.
    for (const method of ["sendWidget", "sendSharedWidget", "editMessageWidgetData", "editSharedWidgetData"]) {
      expect(Object.keys(table.methods)).toContain(method);
    }
    expect(table.methods.answerWidgetQuery).toEqual({
      widget_query_id: { required: true, shape: { kind: "string" } },
      data: { required: false, shape: { kind: "string" } },
    });
    expect(table.methods.sendMessage?.chat_id?.required).toBe(false);
    expect(table.shapes.EphemeralMessageParameters).toMatchObject({
      fields: { callback_query_id: { required: false }, receiver_user_id: { required: false } },
    });
    // 10.5: the bot's settings, and expandable quotations made of blocks.
    expect(table.methods.setMySettings?.callback_query_mode?.shape).toEqual({
      kind: "literal",
      values: ["default", "auto", "inline"],
    });
    expect(table.shapes.InputRichBlockExpandableBlockQuotation).toMatchObject({
      fields: { blocks: { required: true } },
    });
    expect(table.shapes.InputRichBlockExpandableBlockQuotation).not.toHaveProperty("fields.text");
    // What the docs list and the fake checks values against.
    expect(table.methods.sendChatAction?.action?.shape).toMatchObject({ kind: "literal" });
    expect(table.shapes.ReactionTypeEmoji).toMatchObject({ fields: { emoji: { shape: { kind: "literal" } } } });
    expect(table.shapes.ForceReply).toMatchObject({
      fields: { force_reply: { shape: { kind: "literal", values: [true] } } },
    });
    // setMyCommands' commands are checked, BotCommand with its 10.2 is_ephemeral.
    expect(table.methods.setMyCommands?.commands?.shape).toEqual({
      kind: "array",
      of: { kind: "ref", name: "BotCommand" },
    });
    expect(table.shapes.BotCommand).toMatchObject({ fields: { is_ephemeral: { required: false } } });
    // A file inside a JSON object is named by a string; a method's own file may be an upload.
    expect(table.shapes.InputMediaPhoto).toMatchObject({ fields: { media: { shape: { kind: "string" } } } });
    expect(table.methods.sendPhoto?.photo?.shape).toEqual({ kind: "any" });
    // The docs' RichText: a string, an array of RichText, or one of its objects.
    expect(table.shapes.RichText).toMatchObject({ kind: "union", of: expect.arrayContaining([{ kind: "string" }]) });
  });

  it("are as the docs have them where the project's calls go, not as a framework adds to them", () => {
    const table = readMethodTable();
    // Removed from the docs in Bot API 7.0 (reply_parameters took its place).
    expect(table.methods.sendMessage).not.toHaveProperty("reply_to_message_id");
    // One object each, as the docs describe them (the docs' "exactly one of" is not a split into types).
    expect(table.shapes.InlineKeyboardButton).toMatchObject({ kind: "object" });
    expect(table.shapes.MessageEntity).toMatchObject({
      kind: "object",
      fields: { type: { shape: { kind: "literal", values: expect.arrayContaining(["bold", "text_link"]) } } },
    });
    // force_reply on both keyboards since Bot API 10.3.
    expect(table.shapes.InlineKeyboardMarkup).toMatchObject({ fields: { force_reply: { required: false } } });
    expect(table.shapes.ReplyKeyboardMarkup).toMatchObject({ fields: { force_reply: { required: false } } });
    // gramio's { toJSON() } and { toString() } conveniences are no part of the API.
    expect(table.methods.sendMessage?.text?.shape).toEqual({ kind: "string" });
    expect(Object.keys(table.shapes).every((name) => /^[A-Z]\w*$/.test(name))).toBe(true);
  });

  it("come from a spec that says which version it is and what getMe returns", () => {
    const spec = readSpec();
    expect([spec.version, spec.release_date]).toEqual(["Bot API 10.5", "November 22, 2026"]);
    expect(spec.methods.getMe?.returns).toEqual(["BotFullInfo"]);
    // The bot-only fields left User for BotFullInfo.
    const userFields = spec.types.User?.fields?.map((field) => field.name);
    expect(userFields).not.toContain("can_join_groups");
    expect(spec.types.BotFullInfo?.fields?.map((field) => field.name)).toEqual(
      expect.arrayContaining(["can_join_groups", "active_usernames", "has_topic_sidebar"]),
    );
    expect(spec.types.WriteAccessAllowed?.fields?.map((field) => field.name)).toContain("inviter");
    // Every method that sends an ephemeral message takes no chat_id for a reply to a button press (10.4).
    const ephemeral = Object.values(spec.methods).filter((method) =>
      method.fields.some((field) => field.name === "ephemeral_message_parameters"),
    );
    expect(ephemeral.length).toBeGreaterThanOrEqual(14);
    for (const method of ephemeral) {
      expect([method.name, method.fields.find((field) => field.name === "chat_id")?.required]).toEqual([
        method.name,
        false,
      ]);
    }
  });
});

describe("the spec's two sources", () => {
  it("are @gramio/types 10.3.1 typing Bot API 10.3, and a delta written for it", () => {
    const base = readBaseSpec();
    expect(basePackageVersion()).toBe("10.3.1");
    expect([base.version, base.release_date, base.changelog]).toEqual([
      "Bot API 10.3",
      "August 24, 2026",
      "https://core.telegram.org/bots/api-changelog#august-24-2026",
    ]);
    expect(base.methods.sendMessage?.href).toBe("https://core.telegram.org/bots/api#sendmessage");
    expect(readDelta().base).toEqual({ package: "@gramio/types", version: "10.3.1", bot_api: "Bot API 10.3" });
  });

  it("say where each change of the delta was read", () => {
    const delta = readDelta();
    const entries = [...Object.entries(delta.methods), ...Object.entries(delta.types)];
    expect(entries.length).toBeGreaterThan(20);
    for (const [name, entry] of entries) {
      expect([name, ["10.4", "10.5", "base"].includes(entry.since)]).toEqual([name, true]);
      expect(entry.source.length).toBeGreaterThan(0);
      for (const source of entry.source) {
        expect(source).toMatch(/^https:\/\/(core\.telegram\.org\/bots\/|docs\.aiogram\.dev\/en\/)/);
      }
      // A correction of the base says why.
      if (entry.since === "base") expect(entry.note).toBeTruthy();
    }
  });
});

describe("applying a delta", () => {
  const base: Spec = {
    version: "Bot API 1.0",
    release_date: "January 1, 2030",
    changelog: "https://core.telegram.org/bots/api-changelog#january-1-2030",
    methods: {
      send: {
        name: "send",
        href: "https://core.telegram.org/bots/api#send",
        returns: ["Message"],
        fields: [
          { name: "chat_id", types: ["Integer", "String"], required: true },
          { name: "old", types: ["Boolean"], required: false },
        ],
      },
    },
    types: { Media: { name: "Media", href: "https://core.telegram.org/bots/api#media", subtypes: ["Photo"] } },
  };
  const delta = (changes: Partial<Pick<SpecDelta, "methods" | "types">>): SpecDelta => ({
    version: "Bot API 1.1",
    release_date: "February 1, 2030",
    changelog: "https://core.telegram.org/bots/api-changelog#february-1-2030",
    base: { package: "@gramio/types", version: "1.0.0", bot_api: "Bot API 1.0" },
    methods: {},
    types: {},
    ...changes,
  });
  const source = ["https://core.telegram.org/bots/api#send"];

  it("defines, changes, adds and removes, and keeps the rest", () => {
    const spec = applyDelta(
      base,
      delta({
        methods: {
          send: {
            since: "1.1",
            source,
            returns: ["True"],
            fields: { chat_id: { required: false }, old: null, text: { types: ["String"], required: true } },
          },
          ping: {
            since: "1.1",
            source,
            define: { href: "https://core.telegram.org/bots/api#ping", returns: ["True"], fields: [] },
          },
        },
        types: { Media: { since: "1.1", source, subtypes: ["Photo", "Video"] } },
      }),
    );
    expect(spec.version).toBe("Bot API 1.1");
    expect(spec.methods.send).toEqual({
      name: "send",
      href: "https://core.telegram.org/bots/api#send",
      returns: ["True"],
      fields: [
        { name: "chat_id", types: ["Integer", "String"], required: false },
        { name: "text", types: ["String"], required: true },
      ],
    });
    expect(spec.methods.ping?.name).toBe("ping");
    expect(spec.types.Media?.subtypes).toEqual(["Photo", "Video"]);
    // The base is left as it was.
    expect(base.methods.send?.fields).toHaveLength(2);
  });

  it("refuses a change the base has already, so that the delta is trimmed when the base package catches up", () => {
    expect(() =>
      applyDelta(base, delta({ methods: { send: { since: "1.1", source, fields: { chat_id: { required: true } } } } })),
    ).toThrow(/method send: the base has chat_id as the delta says already/);
    expect(() =>
      applyDelta(
        base,
        delta({ methods: { send: { since: "1.1", source, define: { href: "x", returns: [], fields: [] } } } }),
      ),
    ).toThrow(/method send is in the base already/);
    expect(() =>
      applyDelta(base, delta({ methods: { send: { since: "1.1", source, fields: { gone: null } } } })),
    ).toThrow(/removes gone, which the base does not have/);
    expect(() => applyDelta(base, delta({ types: { Photo: { since: "1.1", source, fields: {} } } }))).toThrow(
      /type Photo is not in the base/,
    );
    expect(() =>
      applyDelta(base, delta({ methods: { send: { since: "1.1", source, fields: { text: { required: true } } } } })),
    ).toThrow(/adds text without its types/);
    expect(() => applyDelta({ ...base, version: "Bot API 0.9" }, delta({}))).toThrow(/applies to Bot API 1.0/);
  });
});
