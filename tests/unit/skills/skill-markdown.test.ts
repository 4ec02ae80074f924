import { describe, expect, it } from "vitest";
import { turnSkillsOf } from "../../../src/skills/skill.ts";
import { parseSkillFile, skillFileText } from "../../../src/skills/skill-markdown.ts";

describe("a skill file", () => {
  it("reads front matter written for other tools: folded descriptions, quotes, extra keys", () => {
    const parsed = parseSkillFile(
      [
        "---",
        "name: pdf-forms",
        "description: >",
        "  Fill in PDF forms",
        "  from the user's facts.",
        "license: Apache-2.0",
        "metadata:",
        "  version: 2",
        "always: true",
        "---",
        "",
        "Step 1: ask for the form.",
      ].join("\n"),
      8_000,
    );
    expect(parsed).toEqual({
      ok: true,
      file: {
        name: "pdf-forms",
        description: "Fill in PDF forms from the user's facts.",
        always: true,
        body: "Step 1: ask for the form.",
      },
    });
  });

  it("writes back what it reads, with a description YAML cannot mistake for syntax", () => {
    const skill = { name: "odd", description: 'Has: colons, "quotes" and # hashes', always: false, body: "Do it." };
    const parsed = parseSkillFile(skillFileText(skill), 8_000);
    expect(parsed).toEqual({ ok: true, file: skill });
  });

  it("runs nothing: YAML tags are refused as the front matter's shape", () => {
    const parsed = parseSkillFile("---\nname: !!js/function 'x'\ndescription: d\n---\nbody", 8_000);
    expect(parsed.ok).toBe(false);
  });
});

describe("a turn's skills", () => {
  const skill = (name: string, extra: { always?: boolean; enabled?: boolean } = {}) => ({
    name,
    description: name,
    body: name,
    always: extra.always ?? false,
    enabled: extra.enabled ?? true,
    updatedAt: 0,
  });

  it("are the chat's own over the bot's of the same name, enabled ones only, split by how they are given", () => {
    const own = [skill("tone", { always: true, enabled: false }), skill("notes")];
    const bot = [skill("tone", { always: true }), skill("greeting", { always: true }), skill("atlas")];
    const turn = turnSkillsOf(own, bot);
    expect(turn.always.map((s) => s.name)).toEqual(["greeting"]);
    expect(turn.listed.map((s) => s.name)).toEqual(["atlas", "notes"]);
  });
});
