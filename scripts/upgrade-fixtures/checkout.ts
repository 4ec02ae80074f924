import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export interface Checkout {
  dir: string;
  remove(): void;
}

/**
 * A release's code in a temporary git worktree (detached at `commit`), with this checkout's node_modules linked in
 * when the release's package.json is the same as this one's (the same dependencies, and no install of a few hundred
 * MB); otherwise `npm install` there.
 */
export function temporaryCheckout(commit: string): Checkout {
  const dir = mkdtempSync(join(tmpdir(), "upgrade-release-"));
  git("worktree", "add", "--detach", dir, commit);
  const linked = spawnSync("git", ["diff", "--quiet", commit, "HEAD", "--", "package.json"]).status === 0;
  if (linked) {
    symlinkSync(resolve("node_modules"), join(dir, "node_modules"), "dir");
  } else {
    console.log(`[record] ${commit}'s package.json differs from this checkout's: npm install in ${dir}`);
    const install = spawnSync("npm", ["install", "--no-audit", "--no-fund"], { cwd: dir, stdio: "inherit" });
    if (install.status !== 0) throw new Error(`npm install at ${commit} failed`);
  }
  return {
    dir,
    remove() {
      // The link first, so that nothing that removes the tree can follow it into this checkout's node_modules.
      if (linked && existsSync(join(dir, "node_modules"))) unlinkSync(join(dir, "node_modules"));
      git("worktree", "remove", "--force", dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function git(...args: string[]): void {
  const result = spawnSync("git", args, { stdio: ["ignore", "ignore", "inherit"] });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed`);
}
