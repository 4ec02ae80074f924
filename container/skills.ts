import { mkdir, readdir, realpath, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { RunnerSkill } from "../src/protocol/run-payload.ts";

/**
 * The chat's skills as each agent's CLI reads native skills, installed by the runner from the run's payload, afresh
 * for every run, so that exactly those are visible and nothing an agent wrote (its shell can write its workspace,
 * its home and, in the container, the chat's state directory) becomes an instruction of a later run.
 *
 * Claude Code: the runner loads no settings (`settingSources: []`), so the CLI reads no `.claude/skills` anywhere;
 * the skills come as a local plugin outside the workspace, named in the SDK's `skills` filter as `chat:<name>` (which
 * also keeps the CLI's bundled skills out of the listing).
 *
 * Codex: it reads `$CODEX_HOME/skills`, where the runner installs them, but also the workspace's `.agents/skills` and
 * `.codex/skills`, `$HOME/.agents/skills` and `/etc/codex/skills`. Every `SKILL.md` found there is turned off by
 * path (`skills.config`), and the CLI's bundled skills are off.
 */

/** The plugin's name: the model sees a skill as `chat:<name>`. */
const CLAUDE_PLUGIN = "chat";
/** How deep under a root Codex looks for a `SKILL.md` (its MAX_SCAN_DEPTH is 6), with a margin. */
const SCAN_DEPTH = 8;
/** More directories than this under the places Codex reads: the run lists no skills rather than miss one. */
const SCAN_DIRECTORIES = 2_000;
/** More planted skills than this would not fit in one `-c` argument: the run lists no skills then. */
const MAX_FOREIGN_SKILLS = 200;

/** What the Claude Agent SDK is given: the plugin directory and the skills to enable in it. */
export interface ClaudeSkills {
  pluginPath: string;
  names: string[];
}

/** Installs the skills as a plugin in `directory` (emptied first); undefined when the run has none. */
export async function installClaudeSkills(
  directory: string,
  skills: readonly RunnerSkill[],
): Promise<ClaudeSkills | undefined> {
  await rm(directory, { recursive: true, force: true });
  if (skills.length === 0) return undefined;
  await mkdir(path.join(directory, ".claude-plugin"), { recursive: true, mode: 0o700 });
  await writeFile(
    path.join(directory, ".claude-plugin", "plugin.json"),
    JSON.stringify({ name: CLAUDE_PLUGIN, description: "This chat's skills, installed by the runner for one run" }),
  );
  await writeSkills(path.join(directory, "skills"), skills);
  return { pluginPath: directory, names: skills.map((skill) => `${CLAUDE_PLUGIN}:${skill.name}`) };
}

/** What Codex is told about skills for a run. */
export type CodexSkills =
  /** No skills listed at all (the run has none, or too much was planted to turn off one by one). */
  | { kind: "none"; reason?: string }
  /** The installed skills listed; every other `SKILL.md` Codex would find turned off by path. */
  | { kind: "listed"; disabledPaths: string[] };

/**
 * Installs the skills in `$CODEX_HOME/skills` (emptied first) and finds every other `SKILL.md` Codex would read, to
 * be turned off.
 */
export async function installCodexSkills(
  places: { codexHome: string; workspace: string; home: string; adminRoot?: string },
  skills: readonly RunnerSkill[],
): Promise<CodexSkills> {
  const root = path.join(places.codexHome, "skills");
  await rm(root, { recursive: true, force: true });
  if (skills.length === 0) return { kind: "none" };
  await writeSkills(root, skills);
  const ours = await realpath(root);
  const foreign: string[] = [];
  for (const place of [
    path.join(places.workspace, ".agents", "skills"),
    path.join(places.workspace, ".codex", "skills"),
    path.join(places.home, ".agents", "skills"),
    places.adminRoot ?? "/etc/codex/skills",
  ]) {
    const found = await skillFilesUnder(place);
    if (found === "too_many") return { kind: "none", reason: `too many files under ${place}` };
    for (const file of found) {
      // A link to one of ours is ours: turning it off would turn ours off (Codex resolves a rule's path).
      if (file.real === ours || file.real.startsWith(`${ours}${path.sep}`)) continue;
      foreign.push(file.walked, file.real);
    }
  }
  const disabledPaths = [...new Set(foreign)];
  if (disabledPaths.length > MAX_FOREIGN_SKILLS * 2) {
    return { kind: "none", reason: `more than ${MAX_FOREIGN_SKILLS} skills planted where Codex looks` };
  }
  return { kind: "listed", disabledPaths };
}

async function writeSkills(root: string, skills: readonly RunnerSkill[]): Promise<void> {
  for (const skill of skills) {
    const directory = path.join(root, skill.name);
    await mkdir(directory, { recursive: true, mode: 0o700 });
    await writeFile(path.join(directory, "SKILL.md"), skillFile(skill));
  }
}

/** A `SKILL.md`: the description JSON-quoted (valid YAML, whatever it holds; the payload keeps it to one line). */
function skillFile(skill: RunnerSkill): string {
  return `---\nname: ${skill.name}\ndescription: ${JSON.stringify(skill.description)}\n---\n\n${skill.body}\n`;
}

/**
 * Every `SKILL.md` under `root` (following directory links, hidden directories included), as the path walked to it
 * and its real path; nothing when `root` does not exist.
 */
async function skillFilesUnder(root: string): Promise<{ walked: string; real: string }[] | "too_many"> {
  let start: string;
  try {
    start = await realpath(root);
  } catch {
    return [];
  }
  const found: { walked: string; real: string }[] = [];
  const seen = new Set<string>();
  let directories = 0;
  const walk = async (directory: string, depth: number): Promise<boolean> => {
    const real = await realpath(directory).catch(() => undefined);
    if (real === undefined || seen.has(real)) return true;
    seen.add(real);
    if (++directories > SCAN_DIRECTORIES) return false;
    const entries = await readdir(directory).catch(() => [] as string[]);
    for (const name of entries) {
      const entry = path.join(directory, name);
      const info = await stat(entry).catch(() => undefined);
      if (info === undefined) continue;
      if (info.isFile() && name === "SKILL.md") {
        found.push({ walked: entry, real: await realpath(entry) });
        if (found.length > MAX_FOREIGN_SKILLS) return false;
      } else if (info.isDirectory() && depth < SCAN_DEPTH) {
        if (!(await walk(entry, depth + 1))) return false;
      }
    }
    return true;
  };
  return (await walk(start, 0)) ? found : "too_many";
}
