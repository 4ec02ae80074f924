import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import path from "node:path";

/**
 * A chat's directory name: the chatKey with anything but letters, digits, `_` and `-` turned into `_`, plus a short
 * hash of the exact key so two keys that sanitise alike never share a directory.
 */
export function chatDirectoryName(chatKey: string): string {
  const readable = chatKey.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 80);
  const hash = createHash("sha256").update(chatKey).digest("hex").slice(0, 8);
  return `${readable}-${hash}`;
}

/** The chat's working directory under the workspace root, created if missing. */
export async function ensureChatWorkspace(workspaceRoot: string, chatKey: string): Promise<string> {
  const directory = path.join(path.resolve(workspaceRoot), chatDirectoryName(chatKey));
  await mkdir(directory, { recursive: true });
  return directory;
}
