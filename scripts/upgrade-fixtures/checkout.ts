import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export interface Checkout {
  dir: string;
  remove(): void;
}

/**
 * A release's code in a temporary git worktree (detached at `commit`), with this checkout's node_modules linked in
 * when they hold what the release's package.json asks for (no install of a few hundred MB); otherwise `npm install`
 * there.
 */
export function temporaryCheckout(commit: string): Checkout {
  const dir = mkdtempSync(join(tmpdir(), "upgrade-release-"));
  git("worktree", "add", "--detach", dir, commit);
  const linked = sameDependencies(commit);
  if (linked) {
    symlinkSync(resolve("node_modules"), join(dir, "node_modules"), "dir");
  } else {
    console.log(`[record] ${commit} wants other dependencies than this checkout has: npm install in ${dir}`);
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

/** Whether every dependency of the release's package.json is one of this checkout's, with the same range. */
function sameDependencies(commit: string): boolean {
  type Manifest = { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  const theirs = JSON.parse(execFileSync("git", ["show", `${commit}:package.json`], { encoding: "utf8" })) as Manifest;
  const ours = JSON.parse(readFileSync("package.json", "utf8")) as Manifest;
  const wanted = { ...theirs.dependencies, ...theirs.devDependencies };
  const installed: Record<string, string> = { ...ours.dependencies, ...ours.devDependencies };
  return Object.entries(wanted).every(([name, range]) => installed[name] === range);
}

function git(...args: string[]): void {
  const result = spawnSync("git", args, { stdio: ["ignore", "ignore", "inherit"] });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed`);
}
