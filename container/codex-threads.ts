import { createHash } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";
import * as z from "zod";
import type { UsageTotals } from "./codex-events.ts";

/** Threads remembered per chat; the oldest are forgotten (a thread resumed after that counts as new). */
const MAX_THREADS = 20;
/** Instruction paragraphs remembered per thread: today's first, then the most recent others (old clock lines go). */
const MAX_PARAGRAPHS = 200;

const threadSchema = z.object({
  /** The thread's token totals after its last turn, as the CLI reported them. */
  totals: z.object({
    input: z.number().nonnegative(),
    cachedInput: z.number().nonnegative(),
    cacheWrite: z.number().nonnegative(),
    output: z.number().nonnegative(),
  }),
  /** Digests of the instruction paragraphs the thread has been given. */
  instructions: z.array(z.string()).max(MAX_PARAGRAPHS),
  updatedAt: z.number(),
});
type ThreadNote = z.infer<typeof threadSchema>;
const notesSchema = z.object({ threads: z.record(z.string(), threadSchema) });

/**
 * What the runner remembers about a chat's Codex threads, in one JSON file beside the chat's CODEX_HOME (lost with
 * it). Two things the CLI does not give back: the token totals after the last turn (`turn.completed` reports the
 * thread's running totals, so a turn's own use is the difference), and which instructions the thread already has
 * (Codex keeps the developer instructions a thread started with; `exec resume` does not take new ones).
 */
export class CodexThreads {
  // A plain field, not a parameter property: the runner runs under Node's type stripping.
  private readonly file: string;

  constructor(file: string) {
    this.file = file;
  }

  async get(threadId: string): Promise<ThreadNote | undefined> {
    return (await this.read()).threads[threadId];
  }

  /** After a turn: the thread's totals, and the instructions it has now seen (`current` and those `known` before). */
  async record(
    threadId: string,
    note: { totals: UsageTotals; current: readonly string[]; known: readonly string[] },
  ): Promise<void> {
    const notes = await this.read();
    const instructions = [...new Set([...note.current, ...note.known])].slice(0, MAX_PARAGRAPHS);
    notes.threads[threadId] = { totals: note.totals, instructions, updatedAt: Date.now() };
    const kept = Object.entries(notes.threads)
      .sort(([, a], [, b]) => b.updatedAt - a.updatedAt)
      .slice(0, MAX_THREADS);
    const temporary = `${this.file}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify({ threads: Object.fromEntries(kept) }), { mode: 0o600 });
    await rename(temporary, this.file);
  }

  private async read(): Promise<z.infer<typeof notesSchema>> {
    let text: string;
    try {
      text = await readFile(this.file, "utf8");
    } catch {
      return { threads: {} };
    }
    try {
      const parsed = notesSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : { threads: {} };
    } catch {
      return { threads: {} };
    }
  }
}

/** The instructions in paragraphs (blank-line separated), each with a digest to compare by. */
export function instructionParagraphs(instructions: string): Array<{ text: string; digest: string }> {
  return instructions
    .split(/\n\s*\n/)
    .map((text) => text.trim())
    .filter((text) => text !== "")
    .map((text) => ({ text, digest: createHash("sha256").update(text).digest("base64url").slice(0, 22) }));
}

/**
 * The part of this turn's instructions a resumed thread has not seen: its new or changed paragraphs (the bot's
 * clock line changes every turn; a chat's persona when an admin edits it), as a block before the user's message.
 * Empty when nothing changed.
 */
export function instructionsUpdate(instructions: string, known: readonly string[]): string {
  const seen = new Set(known);
  const fresh = instructionParagraphs(instructions).filter((paragraph) => !seen.has(paragraph.digest));
  if (fresh.length === 0) return "";
  return [
    "<bot_instructions_update>",
    "The bot's instructions changed since this conversation began. These parts are new; where they differ from " +
      "the earlier instructions on the same subject, they replace them:",
    "",
    fresh.map((paragraph) => paragraph.text).join("\n\n"),
    "</bot_instructions_update>",
  ].join("\n");
}
