import { JSON_SCHEMA, load } from "js-yaml";
import { describe, expect, it } from "vitest";
import { FrontMatterError, readFrontMatter } from "../../../src/skills/front-matter.ts";

/** Front matter as skills written for other tools have it; js-yaml (a full parser) says what each one means. */
const SAMPLES = [
  "name: pdf-forms\ndescription: Fill in PDF forms.",
  "name: x\ndescription: >\n  Fill in PDF forms\n  from the user's facts.\n\n  Second paragraph.\nalways: true",
  "name: x\ndescription: |\n  line one\n    indented\n  line three\n",
  "name: x\ndescription: >-\n  folded\n  stripped\nalways: false",
  "name: x\ndescription: |+\n  kept\n",
  "name: 'it''s'\ndescription: \"tab\\there \\u00e9 \\\"quoted\\\" # not a comment\"",
  'name: odd\ndescription: "Has: colons, \\"quotes\\" and # hashes"',
  "# a comment\nname: x # trailing comment\ndescription: d\n\nlicense: Apache-2.0",
  "name: x\ndescription: d\nmetadata:\n  version: 2\n  tags: [a, b]\nallowed-tools:\n- Read\n- Write",
  "name: x\ndescription: d\nallowed-tools: [Bash, Read]\nextra: {a: 1}",
  "name: x\ndescription: a plain value\n  that goes on\nalways: TRUE\nversion: 1.5\ncount: -3\nplus: +3\nnothing: ~\nnull: null\nempty:\nspace: \nzero: 00\nexp: -0.5e-3",
  "name: x\ndescription: 'single\n  over two lines'",
  '"quoted key": 1\nname: x\ndescription: d',
];

describe("a skill's front matter", () => {
  it.each(SAMPLES)("reads the keys the bot uses as js-yaml does: %j", (text) => {
    const expected = load(text, { schema: JSON_SCHEMA }) as Record<string, unknown>;
    const read = readFrontMatter(text);
    expect(Object.keys(read)).toEqual(Object.keys(expected));
    for (const [key, value] of Object.entries(expected)) {
      // Nested blocks and flow collections are kept only as their kind: the bot reads scalars.
      if (value !== null && typeof value === "object") expect(Array.isArray(read[key])).toBe(Array.isArray(value));
      else expect(read[key]).toEqual(value);
    }
  });

  it("refuses what YAML refuses or what could run, saying on which line", () => {
    const refused = [
      "name: !!js/function 'x'\ndescription: d",
      "name: x\nname: y",
      "name: x\n  indented: wrongly",
      "name: a: b",
      "name: 'unclosed\ndescription: d",
      "name: [unclosed",
      "name: {a: [1}",
    ];
    for (const text of refused) {
      expect(() => load(text, { schema: JSON_SCHEMA }), text).toThrow();
      expect(() => readFrontMatter(text), text).toThrow(FrontMatterError);
    }
    expect(() => readFrontMatter("name: x\nname: y")).toThrow("line 2: the key name is given twice");
    // A lone scalar is YAML, but not a mapping of keys: a skill's front matter must be one.
    expect(() => readFrontMatter("just text")).toThrow("line 1: expected `key: value`");
    // Anchors and aliases are YAML, but nothing in a skill needs them: refused rather than followed.
    expect(() => readFrontMatter("name: &anchor x\ndescription: *anchor")).toThrow("line 1: tags, anchors");
  });
});
