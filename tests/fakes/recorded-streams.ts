import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { recordedLines } from "./recorded-events.ts";

/**
 * Where recorded provider answers are kept: ../shared/fixtures/recorded-streams from the repository root (test data
 * from vercel/ai, outside this repository; its README says where each file came from).
 */
export const RECORDED_STREAMS_DIR = fileURLToPath(
  new URL("../../../shared/fixtures/recorded-streams/", import.meta.url),
);

/** A recorded answer by file name: a stream's JSON lines (`.chunks.txt`), or a whole answer (`.json`). */
export type RecordedAnswer = { kind: "stream"; lines: string[] } | { kind: "json"; body: unknown };

/** Reads a recorded answer; throws, naming the directory, when it is not there. */
export function readRecordedAnswer(name: string): RecordedAnswer {
  if (!/^[\w.-]+$/.test(name)) throw new Error(`not a recorded answer's file name: ${name}`);
  const path = `${RECORDED_STREAMS_DIR}${name}`;
  if (!existsSync(path)) throw new Error(`no recorded answer ${name} in ${RECORDED_STREAMS_DIR}`);
  const text = readFileSync(path, "utf8");
  if (name.endsWith(".json")) return { kind: "json", body: JSON.parse(text) };
  return { kind: "stream", lines: recordedLines(text) };
}
