import * as z from "zod";
import type { IssueDetail } from "../protocol/issues.ts";
import { readFrontMatter } from "./front-matter.ts";
import { type Skill, skillChars, skillDescriptionSchema, skillNameSchema } from "./skill.ts";

/** What a skill file says: its front matter's fields and its Markdown body. */
export interface SkillFile {
  name: string;
  description: string;
  always: boolean;
  body: string;
}

/** The largest file read at all; the per-skill cap (SKILL_MAX_CHARS) is checked on what it says. */
export const MAX_SKILL_FILE_CHARS = 200_000;

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

const frontMatterSchema = z.looseObject({
  name: skillNameSchema,
  description: skillDescriptionSchema,
  always: z.boolean().optional(),
});

/**
 * Reads a skill file: `---`, YAML front matter with `name`, `description` and optionally `always` (other keys, such as
 * `license` or `metadata` in skills written for other tools, are ignored), `---`, then the instructions. Every problem
 * is named by the field it is in (`markdown` for the file's shape, `name`, `description`, `always`, `body`), so the
 * admin API's 400 and the console's form can say exactly what to fix. `maxChars` caps description and body together.
 */
export function parseSkillFile(
  markdown: string,
  maxChars: number,
): { ok: true; file: SkillFile } | { ok: false; issues: IssueDetail[] } {
  if (markdown.length > MAX_SKILL_FILE_CHARS) {
    return failed(
      "markdown",
      `the file has ${count(markdown.length)} characters; at most ${count(MAX_SKILL_FILE_CHARS)}`,
    );
  }
  const match = FRONT_MATTER.exec(markdown);
  if (!match) {
    return failed(
      "markdown",
      "must start with front matter: a line `---`, then `name: …` and `description: …`, then a line `---`",
    );
  }
  let yaml: unknown;
  try {
    // Plain strings, numbers, booleans and null; no tags, nothing that runs (src/skills/front-matter.ts).
    yaml = readFrontMatter(match[1]!);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : "not YAML";
    return failed("markdown", `the front matter is not valid YAML (${reason})`);
  }
  const parsed = frontMatterSchema.safeParse(yaml ?? {});
  if (!parsed.success) {
    return {
      ok: false,
      issues: parsed.error.issues.map((issue) => ({
        field: issue.path.length > 0 ? issue.path.join(".") : "markdown",
        problem: issue.path.length > 0 ? issue.message : "the front matter must be a mapping of keys to values",
      })),
    };
  }
  const body = markdown.slice(match[0].length).trim();
  if (body === "") return failed("body", "the skill has no instructions after its front matter");
  const file: SkillFile = {
    name: parsed.data.name,
    description: parsed.data.description,
    always: parsed.data.always ?? false,
    body,
  };
  const size = skillChars(file);
  if (size > maxChars) {
    return failed(
      "body",
      `description and instructions are ${count(size)} characters; a skill may have at most ${count(maxChars)} (SKILL_MAX_CHARS)`,
    );
  }
  return { ok: true, file };
}

/**
 * A skill as a file again (for editing, and for `/skills show`): the description JSON-quoted, which is valid YAML and
 * keeps any character it holds from being read as YAML syntax.
 */
export function skillFileText(skill: Pick<Skill, "name" | "description" | "always" | "body">): string {
  const always = skill.always ? "always: true\n" : "";
  return `---\nname: ${skill.name}\ndescription: ${JSON.stringify(skill.description)}\n${always}---\n\n${skill.body}\n`;
}

function failed(field: string, problem: string): { ok: false; issues: IssueDetail[] } {
  return { ok: false, issues: [{ field, problem }] };
}

function count(value: number): string {
  return value.toLocaleString("en-US");
}
