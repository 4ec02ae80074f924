import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { SidecarAnswer, SidecarHello, SidecarRequest, TdParseMode } from "./tdlib-protocol.ts";

export type { TdParseMode } from "./tdlib-protocol.ts";

/**
 * Telegram's own entity parser, TDLib's `parseTextEntities` (the function the Bot API server calls for `parse_mode`),
 * run in a child process (./tdlib-sidecar.ts). Where TDLib cannot be loaded, `status` says why and `parse` throws:
 * callers must skip, never accept unchecked.
 */
export type TdlibStatus = { available: true; version: string } | { available: false; reason: string };

/** A Bot API style entity (UTF-16 offsets), from TDLib's `textEntity`. */
export interface ParsedEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
  language?: string;
}

type ParseResult = { ok: true; text: string; entities: ParsedEntity[] } | { ok: false; message: string };

export interface TdlibParser {
  readonly status: TdlibStatus;
  /** Parses each text with its mode, in one round trip. */
  parse(items: { text: string; mode: TdParseMode }[]): Promise<ParseResult[]>;
  close(): Promise<void>;
}

class TdlibUnavailableError extends Error {
  constructor(reason: string) {
    super(`TDLib's parser is not available: ${reason}`);
    this.name = "TdlibUnavailableError";
  }
}

const SIDECAR = fileURLToPath(new URL("./tdlib-sidecar.ts", import.meta.url));
const START_TIMEOUT_MS = 20_000;

const tdEntity = z.object({
  offset: z.number(),
  length: z.number(),
  type: z.looseObject({ "@type": z.string(), url: z.string().optional(), language: z.string().optional() }),
});
const tdResult = z.union([
  z.object({ "@type": z.literal("formattedText"), text: z.string(), entities: z.array(tdEntity) }),
  z.object({ "@type": z.literal("error"), code: z.number(), message: z.string() }),
]);

export async function startTdlib(): Promise<TdlibParser> {
  let child: ChildProcess;
  try {
    child = fork(SIDECAR, [], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  } catch (error) {
    return unavailable(`the parser process could not start: ${error instanceof Error ? error.message : error}`);
  }
  const hello = await new Promise<SidecarHello | { kind: "failed"; reason: string }>((resolve) => {
    const timer = setTimeout(
      () => resolve({ kind: "failed", reason: "the parser process did not answer" }),
      START_TIMEOUT_MS,
    );
    child.once("message", (message: SidecarHello) => {
      clearTimeout(timer);
      resolve(message);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ kind: "failed", reason: `the parser process exited (${signal ?? `code ${code}`})` });
    });
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({ kind: "failed", reason: `the parser process could not start: ${error.message}` });
    });
  });
  if (hello.kind === "failed" || !hello.available) {
    child.kill();
    return unavailable(hello.kind === "failed" ? hello.reason : hello.reason);
  }
  return new SidecarParser(child, { available: true, version: hello.version });
}

function unavailable(reason: string): TdlibParser {
  return {
    status: { available: false, reason },
    parse: () => Promise.reject(new TdlibUnavailableError(reason)),
    close: async () => {},
  };
}

class SidecarParser implements TdlibParser {
  readonly status: TdlibStatus;
  private readonly child: ChildProcess;
  private readonly pending = new Map<
    number,
    { resolve: (results: unknown[]) => void; reject: (error: Error) => void }
  >();
  private nextId = 1;
  private exited: string | undefined;

  constructor(child: ChildProcess, status: TdlibStatus) {
    this.child = child;
    this.status = status;
    child.on("message", (message: SidecarAnswer) => {
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      waiter?.resolve(message.results);
      this.idle();
    });
    child.on("exit", (code, signal) => {
      this.exited = `TDLib's parser process exited (${signal ?? `code ${code}`})`;
      for (const waiter of this.pending.values()) waiter.reject(new Error(this.exited));
      this.pending.clear();
    });
    this.idle();
  }

  async parse(items: { text: string; mode: TdParseMode }[]): Promise<ParseResult[]> {
    if (this.exited) throw new Error(this.exited);
    if (items.length === 0) return [];
    const id = this.nextId++;
    const results = await new Promise<unknown[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // Keep this process alive while an answer is awaited (the channel is unreferenced when idle).
      this.child.channel?.ref();
      this.child.send({ id, items } satisfies SidecarRequest);
    });
    return results.map(toParseResult);
  }

  async close(): Promise<void> {
    if (this.exited || this.child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    // Wait for it: the sidecar leaves with process.exit as soon as its channel closes.
    this.child.ref();
    this.child.disconnect();
    await exited;
  }

  /** An idle parser must not keep its parent running (a benchmark or script that is done exits). */
  private idle(): void {
    if (this.pending.size > 0) return;
    this.child.channel?.unref();
    this.child.unref();
  }
}

function toParseResult(raw: unknown): ParseResult {
  const result = tdResult.parse(raw);
  if (result["@type"] === "error") return { ok: false, message: result.message };
  return {
    ok: true,
    text: result.text,
    entities: result.entities.map((entity) => ({
      type: entityTypeOf(entity.type["@type"]),
      offset: entity.offset,
      length: entity.length,
      ...(entity.type.url !== undefined ? { url: entity.type.url } : {}),
      ...(entity.type.language ? { language: entity.type.language } : {}),
    })),
  };
}

const RENAMED: Record<string, string> = {
  TextUrl: "text_link",
  PreCode: "pre",
  MentionName: "text_mention",
  BlockQuote: "blockquote",
  ExpandableBlockQuote: "expandable_blockquote",
  EmailAddress: "email",
};

/** `textEntityTypeBankCardNumber` → `bank_card_number`, as the Bot API names TDLib's entity types. */
function entityTypeOf(tdType: string): string {
  const name = tdType.replace(/^textEntityType/, "");
  return RENAMED[name] ?? name.replace(/(?<!^)([A-Z])/g, "_$1").toLowerCase();
}
