import { escapeMarkdown } from "../telegram/rich-render.ts";

/** One tool call of a turn, as a person may read it afterwards: the tool, a short argument, and how it went. */
export interface ToolStep {
  tool: string;
  /** The call's arguments as the adapter previewed them (up to 200 characters). */
  argument: string;
  /** From the tool's result message, when the adapter reported one. */
  outcome?: { ok: boolean; text: string };
}

const MAX_LISTED = 30;
const ARGUMENT_LENGTH = 60;
const OUTCOME_LENGTH = 80;

/**
 * The steps as a collapsed `<details>` block of rich Markdown, one line each: `tool` short argument — ✓ or ✗ and the
 * start of the error. Telegram's plain HTML has no such block: only a rich answer carries it.
 */
export function stepsBlock(steps: readonly ToolStep[]): string {
  const lines = steps.slice(0, MAX_LISTED).map((step) => {
    const argument = shortArgument(step.argument);
    const outcome = step.outcome
      ? step.outcome.ok
        ? " — ✓"
        : ` — ✗ ${escapeMarkdown(short(firstLine(step.outcome.text), OUTCOME_LENGTH))}`
      : "";
    return `- ${codeSpan(step.tool)}${argument ? ` ${escapeMarkdown(argument)}` : ""}${outcome}`;
  });
  if (steps.length > MAX_LISTED) lines.push(`- … and ${steps.length - MAX_LISTED} more`);
  const title = steps.length === 1 ? "1 step" : `${steps.length} steps`;
  return `<details><summary>🛠 ${title}</summary>\n\n${lines.join("\n")}\n\n</details>`;
}

/** The first string value of a JSON object preview (a URL, a query), else the preview itself, shortened. */
function shortArgument(preview: string): string {
  const value = /^\s*\{\s*"[^"]*"\s*:\s*"((?:[^"\\]|\\.)*)"?/.exec(preview)?.[1];
  const text = (value ?? preview).replace(/\\"/g, '"').replace(/\\n/g, " ").trim();
  return text === "{}" ? "" : short(text, ARGUMENT_LENGTH);
}

function firstLine(text: string): string {
  return (
    text
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim() ?? ""
  );
}

function short(text: string, length: number): string {
  const characters = Array.from(text);
  return characters.length > length ? `${characters.slice(0, length - 1).join("")}…` : text;
}

function codeSpan(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}
