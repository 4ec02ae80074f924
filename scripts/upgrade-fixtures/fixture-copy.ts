import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { type Manifest, manifestSchema } from "./manifest.ts";

const FIXTURES_DIR = "tests/fixtures/upgrade";

/** The releases that have a fixture, oldest name first. */
export function fixtureReleases(): string[] {
  return readdirSync(FIXTURES_DIR)
    .filter((name) => existsSync(join(FIXTURES_DIR, name, "manifest.json")))
    .sort();
}

export function readManifest(release: string): Manifest {
  return manifestSchema.parse(JSON.parse(readFileSync(join(FIXTURES_DIR, release, "manifest.json"), "utf8")));
}

/**
 * A fixture's storage copied into a fresh temporary directory (the committed files are never run on), with the
 * answers waiting in its outboxes dated `now`: as if Telegram had gone down just before this upgrade. Otherwise they
 * would be older than OUTBOX_MAX_HOURS allows (at most a week) and given up, as the product should; that rule is not
 * what an upgrade test checks.
 */
export function copyFixture(release: string, now: number): string {
  const copy = mkdtempSync(join(tmpdir(), `upgrade-${release}-`));
  cpSync(join(FIXTURES_DIR, release, "state"), copy, { recursive: true });
  const objects = join(copy, "v3/do/telegram-edge-agent-ChatSession");
  for (const name of readdirSync(objects)) {
    if (!name.endsWith(".sqlite") || name === "metadata.sqlite") continue;
    const database = new DatabaseSync(join(objects, name));
    const hasOutbox = database.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'outbox'").get();
    if (hasOutbox) database.prepare("UPDATE outbox SET created_at = ?").run(now);
    database.close();
  }
  return copy;
}
