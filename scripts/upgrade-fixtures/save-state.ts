import { copyFileSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { DatabaseSync } from "node:sqlite";

/** The local runtime's stores the bot writes to (the cache, rate limiter and flags hold nothing of it). */
const KEPT = ["v3/d1", "v3/do", "v3/kv", "v3/r2"];

/**
 * Copies a stopped `wrangler dev`'s persisted state (`--persist-to`) into `target`, small: each SQLite database as
 * one file, its write-ahead log folded in and its free pages dropped (VACUUM INTO); KV's and R2's blobs as they are.
 * Returns the files written, with their sizes.
 */
export function saveState(state: string, target: string): { file: string; bytes: number }[] {
  const saved: { file: string; bytes: number }[] = [];
  for (const kept of KEPT) {
    for (const file of filesUnder(join(state, kept))) {
      if (file.endsWith("-wal") || file.endsWith("-shm")) continue;
      const to = join(target, relative(state, file));
      mkdirSync(dirname(to), { recursive: true });
      if (file.endsWith(".sqlite")) {
        const database = new DatabaseSync(file);
        database.prepare("VACUUM INTO ?").run(to);
        database.close();
      } else {
        copyFileSync(file, to);
      }
      saved.push({ file: relative(target, to), bytes: statSync(to).size });
    }
  }
  return saved;
}

function filesUnder(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
