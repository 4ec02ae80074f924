/**
 * The recorded provider answers in ../shared/fixtures/recorded-streams (from the repository root), for tests that run
 * in workerd, which has no file system: Vite finds them when it builds the test (none when the directory is absent)
 * and each is read only when a test asks for it. The fakes' Node side reads the same files (recorded-streams.ts).
 */
declare global {
  interface ImportMeta {
    /** Vite's static import of the files a pattern finds (only what this module uses of it). */
    glob<T>(pattern: string, options: { query: "?raw"; import: "default" }): Record<string, () => Promise<T>>;
  }
}

const files = import.meta.glob<string>("../../../shared/fixtures/recorded-streams/*.{txt,json}", {
  query: "?raw",
  import: "default",
});

const byName = new Map(Object.entries(files).map(([path, load]) => [path.slice(path.lastIndexOf("/") + 1), load]));

/** Why a test of a recorded answer is skipped, or undefined when the answers are here. */
export function recordedAbsent(...names: string[]): string | undefined {
  const missing = names.filter((name) => !byName.has(name));
  if (missing.length === 0) return undefined;
  return `recorded answers not found in ../shared/fixtures/recorded-streams (from the repository root): ${missing.join(", ")}`;
}

/** Skips the running test, saying why, when any of these recorded answers is absent (pass the test's `skip`). */
export function skipWithout(skip: (condition: boolean, note?: string) => void, ...names: string[]): void {
  const absent = recordedAbsent(...names);
  skip(absent !== undefined, absent);
}

/** A recorded answer's text; throws when it is absent (check `recordedAbsent` first). */
export async function recordedText(name: string): Promise<string> {
  const load = byName.get(name);
  if (!load) throw new Error(recordedAbsent(name));
  return load();
}
