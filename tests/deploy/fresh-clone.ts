import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { REPO_ROOT } from "../fakes/wrangler.ts";

/** A copy of the repository as a fresh clone has it, with the installed packages of this one. */
export interface FreshClone {
  dir: string;
  remove(): void;
}

/**
 * What `git clone` of this working tree would give (its tracked files, as they are now, and files git does not
 * ignore), in a temporary directory; `node_modules` is this repository's, linked, since installing again would take a
 * minute and the registry. Nothing else of this checkout comes along: no .dev.vars, no .wrangler, no .deploy.
 */
export function freshClone(): FreshClone {
  const dir = mkdtempSync(join(tmpdir(), "fresh-clone-"));
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  });
  for (const path of listed.split("\0")) {
    if (path === "") continue;
    const to = join(dir, path);
    mkdirSync(dirname(to), { recursive: true });
    try {
      copyFileSync(join(REPO_ROOT, path), to);
    } catch {
      // A file deleted in the working tree but not yet in the index: a clone of the next commit would not have it.
    }
  }
  symlinkSync(join(REPO_ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
