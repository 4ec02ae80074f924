/** What the TDLib sidecar (./tdlib-sidecar.ts) and its parent (./tdlib.ts) say to each other over IPC. */
export type TdParseMode = "HTML" | "MarkdownV2" | "Markdown";

export interface SidecarRequest {
  id: number;
  items: { text: string; mode: TdParseMode }[];
}

export type SidecarHello =
  | { kind: "hello"; available: true; version: string }
  | { kind: "hello"; available: false; reason: string };

/** One TDLib answer per item: a `formattedText` or an `error` object, as `td_execute` returned it. */
export interface SidecarAnswer {
  kind: "answer";
  id: number;
  results: unknown[];
}
