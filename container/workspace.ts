import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import path from "node:path";

/** Under the workspace root, beside the chats' directories (whose names never start with a dot). */
const STATE_DIRECTORY = ".chat-state";

/**
 * A chat's directory name: the chatKey with anything but letters, digits, `_` and `-` turned into `_`, plus a short
 * hash of the exact key so two keys that sanitise alike never share a directory.
 */
export function chatDirectoryName(chatKey: string): string {
  const readable = chatKey.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 80);
  const hash = createHash("sha256").update(chatKey).digest("hex").slice(0, 8);
  return `${readable}-${hash}`;
}

export interface ChatDirectories {
  /** Where the agent works (its cwd). */
  workspace: string;
  /** The chat's CLAUDE_CONFIG_DIR: its sessions and transcripts, apart from every other chat's. */
  config: string;
  /** The chat's HOME, so nothing of the runner's user (dotfiles, credentials) is read by default. */
  home: string;
  /** The chat's CODEX_HOME: Codex's sessions and state, apart from every other chat's. */
  codex: string;
  /** The runner's own notes on the chat's Codex threads (codex-threads.ts). */
  codexThreads: string;
  /** Where the runner installs the chat's skills for Claude Code, afresh each run (skills.ts). */
  claudeSkills: string;
}

/**
 * A chat's directories, created if missing. Config and home sit outside the workspace, so the agent's own files
 * never become its settings.
 */
export async function ensureChatDirectories(workspaceRoot: string, chatKey: string): Promise<ChatDirectories> {
  const root = path.resolve(workspaceRoot);
  const name = chatDirectoryName(chatKey);
  const state = path.join(root, STATE_DIRECTORY, name);
  const directories = {
    workspace: path.join(root, name),
    config: path.join(state, "claude"),
    home: path.join(state, "home"),
    codex: path.join(state, "codex"),
  };
  for (const directory of Object.values(directories)) await mkdir(directory, { recursive: true, mode: 0o700 });
  return {
    ...directories,
    codexThreads: path.join(state, "codex-threads.json"),
    claudeSkills: path.join(state, "claude-skills"),
  };
}
