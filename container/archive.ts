import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";

/** Transcripts above this size are not archived (the hook must stay quick). */
const MAX_TRANSCRIPT_BYTES = 50 * 1024 * 1024;
const MAX_TITLE = 60;

export interface ArchiveInput {
  /** The session's JSONL transcript, as the PreCompact hook input names it. */
  transcriptPath: string;
  /** The chat's working directory; the archive goes to `<cwd>/conversations/`. */
  cwd: string;
  sessionId: string;
  trigger: string;
  now?: Date;
}

interface Entry {
  role: "user" | "assistant";
  text: string;
}

/**
 * Writes the session's conversation so far as Markdown to `<cwd>/conversations/<date>-<time>-<title>.md`, before the
 * SDK compacts it away (the seeds' PreCompact archive). User and assistant text only: tool calls become a one-line
 * note, tool results, system reminders, meta and side-chain entries are left out. Returns the file written, or
 * undefined when there was nothing to archive. Throws on I/O errors; the caller treats it as best effort.
 */
export async function archiveTranscript(input: ArchiveInput): Promise<string | undefined> {
  const info = await stat(input.transcriptPath);
  if (info.size > MAX_TRANSCRIPT_BYTES) return undefined;
  const entries = parseTranscript(await readFile(input.transcriptPath, "utf8"));
  if (entries.length === 0) return undefined;

  const now = input.now ?? new Date();
  const title = titleOf(entries);
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, "")
    .replace("T", "-")
    .replace(/:/g, "");
  const directory = path.join(input.cwd, "conversations");
  await mkdir(directory, { recursive: true });
  const file = path.join(directory, `${stamp}-${slug(title)}.md`);
  const markdown = [
    `# ${title}`,
    "",
    `- Session: ${input.sessionId}`,
    `- Archived: ${now.toISOString()} (before ${input.trigger} compaction)`,
    "",
    ...entries.map((entry) => `**${entry.role === "user" ? "User" : "Assistant"}:** ${entry.text}\n`),
  ].join("\n");
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, markdown, "utf8");
  await rename(temporary, file);
  return file;
}

/** The user and assistant text of a Claude Code JSONL transcript, consecutive assistant pieces merged. */
export function parseTranscript(jsonl: string): Entry[] {
  const entries: Entry[] = [];
  for (const line of jsonl.split("\n")) {
    if (line.trim() === "") continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isRecord(record) || record.isSidechain === true || record.isMeta === true) continue;
    if (record.type !== "user" && record.type !== "assistant") continue;
    const message = isRecord(record.message) ? record.message : undefined;
    if (!message) continue;
    const text = record.type === "user" ? userText(message.content) : assistantText(message.content);
    if (text === "") continue;
    const previous = entries.at(-1);
    if (previous && previous.role === record.type && record.type === "assistant") previous.text += `\n\n${text}`;
    else entries.push({ role: record.type, text });
  }
  return entries;
}

function userText(content: unknown): string {
  const parts =
    typeof content === "string"
      ? [content]
      : Array.isArray(content)
        ? content.flatMap((block) =>
            isRecord(block) && block.type === "text" && typeof block.text === "string" ? [block.text] : [],
          )
        : [];
  return parts
    .map((part) => part.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, "").trim())
    .filter((part) => part !== "")
    .join("\n\n");
}

function assistantText(content: unknown): string {
  if (typeof content === "string") return content.trim();
  if (!Array.isArray(content)) return "";
  return content
    .flatMap((block) => {
      if (!isRecord(block)) return [];
      if (block.type === "text" && typeof block.text === "string" && block.text.trim() !== "")
        return [block.text.trim()];
      if (block.type === "tool_use" && typeof block.name === "string") return [`_(used the tool ${block.name})_`];
      return [];
    })
    .join("\n\n");
}

function titleOf(entries: readonly Entry[]): string {
  const first = entries.find((entry) => entry.role === "user")?.text ?? "Conversation";
  const line =
    first
      .split("\n")
      .find((part) => part.trim() !== "")
      ?.trim() ?? "Conversation";
  return line.length <= MAX_TITLE ? line : `${line.slice(0, MAX_TITLE - 1)}…`;
}

function slug(title: string): string {
  const cleaned = title
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  return cleaned === "" ? "conversation" : cleaned;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
