/**
 * TDLib's own entity parser (`parseTextEntities` through `td_execute`: synchronous, no network), in a process of its
 * own: a Node process that has loaded libtdjson crashes when it exits by itself, so only this small child ever loads
 * it, and it always ends with an explicit `process.exit`. The parent (./tdlib.ts) forks it with an IPC channel.
 *
 * Protocol: one `SidecarHello` first, then one `SidecarAnswer` per `SidecarRequest`, in order. Plain, erasable
 * TypeScript: Node runs it with type stripping.
 */
import { createRequire } from "node:module";
import type { SidecarAnswer, SidecarHello, SidecarRequest, TdParseMode } from "./tdlib-protocol.ts";

const require = createRequire(import.meta.url);

type Execute = (request: string) => string;

function load(): { execute: Execute; version: string } | { reason: string } {
  let koffi: typeof import("koffi");
  let tdlib: typeof import("prebuilt-tdlib");
  try {
    koffi = require("koffi");
    tdlib = require("prebuilt-tdlib");
  } catch (error) {
    return { reason: `koffi or prebuilt-tdlib is not installed (${messageOf(error)}); run npm install` };
  }
  try {
    const library = koffi.load(tdlib.getTdjson());
    const call = library.func("const char* td_execute(const char* request)");
    const execute: Execute = (request) => String(call(request));
    // TDLib logs every synchronous request to stderr by default.
    execute(JSON.stringify({ "@type": "setLogVerbosityLevel", new_verbosity_level: 0 }));
    const option = JSON.parse(execute(JSON.stringify({ "@type": "getOption", name: "version" }))) as { value?: string };
    return { execute, version: option.value ?? "unknown" };
  } catch (error) {
    return { reason: `libtdjson could not be loaded on ${process.platform}-${process.arch}: ${messageOf(error)}` };
  }
}

function parseModeOf(mode: TdParseMode): Record<string, unknown> {
  switch (mode) {
    case "HTML":
      return { "@type": "textParseModeHTML" };
    case "MarkdownV2":
      return { "@type": "textParseModeMarkdown", version: 2 };
    case "Markdown":
      return { "@type": "textParseModeMarkdown", version: 1 };
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const loaded = load();
const send = (message: SidecarHello | SidecarAnswer) => process.send?.(message);

if ("reason" in loaded) {
  send({ kind: "hello", available: false, reason: loaded.reason });
} else {
  send({ kind: "hello", available: true, version: loaded.version });
  process.on("message", (request: SidecarRequest) => {
    const results = request.items.map((item) =>
      JSON.parse(
        loaded.execute(
          JSON.stringify({ "@type": "parseTextEntities", text: item.text, parse_mode: parseModeOf(item.mode) }),
        ),
      ),
    );
    send({ kind: "answer", id: request.id, results });
  });
}
// The parent went away (or closed the channel): leave explicitly, never by running out of work.
process.on("disconnect", () => process.exit(0));
