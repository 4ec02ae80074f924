import { deflateSync } from "node:zlib";
import { badRequest, type Refusal } from "./refusal.ts";

/**
 * An HTML widget's documented limits (Bot API 10.4, sendWidget and https://core.telegram.org/bots/widgets): its HTML
 * 1-32,768 bytes and at most 4,096 bytes "when compressed by zlib with the maximum compression level"; its public
 * and chat data 0-1,024 bytes each; an answer to a widget query 0-1,024 bytes.
 *
 * The words: INPUT_MEDIA_WIDGET_TOO_LARGE is the name a client library of Telegram's own API reports for an oversized
 * widget (vaegram's docs; Telegram's docs name no error). The empty-HTML and too-long-data words are the fake's own,
 * in the style of Telegram's ("text must be non-empty", MESSAGE_TOO_LONG).
 */
const WIDGET_LIMITS = { htmlBytes: 32_768, compressedBytes: 4_096, dataBytes: 1_024 } as const;

const WIDGET_TOO_LARGE = badRequest("INPUT_MEDIA_WIDGET_TOO_LARGE");
/** The fake's own words. */
const WIDGET_HTML_EMPTY = badRequest("widget HTML must be non-empty");
/** The fake's own words. */
const WIDGET_DATA_TOO_LONG = badRequest("WIDGET_DATA_TOO_LONG");

interface WidgetSize {
  bytes: number;
  /** zlib (deflate with its header), level 9, as the docs measure it. */
  compressedBytes: number;
}

function widgetSize(html: string): WidgetSize {
  const bytes = Buffer.from(html, "utf8");
  return { bytes: bytes.length, compressedBytes: deflateSync(bytes, { level: 9 }).length };
}

/** Telegram's refusal of a widget's HTML, or undefined when it fits. */
export function widgetHtmlProblem(html: unknown): { refusal: Refusal; detail: string } | undefined {
  if (typeof html !== "string" || html === "") return { refusal: WIDGET_HTML_EMPTY, detail: "no html" };
  const size = widgetSize(html);
  if (size.bytes > WIDGET_LIMITS.htmlBytes) {
    return { refusal: WIDGET_TOO_LARGE, detail: `${size.bytes} bytes of HTML (at most ${WIDGET_LIMITS.htmlBytes})` };
  }
  if (size.compressedBytes > WIDGET_LIMITS.compressedBytes) {
    return {
      refusal: WIDGET_TOO_LARGE,
      detail: `${size.compressedBytes} bytes after zlib (at most ${WIDGET_LIMITS.compressedBytes})`,
    };
  }
  return undefined;
}

/** Public data, chat data or an answer longer than 1,024 bytes (undefined: absent, so unchanged). */
export function widgetDataProblem(...values: unknown[]): Refusal | undefined {
  const tooLong = values.some(
    (value) => value !== undefined && value !== null && Buffer.byteLength(String(value)) > WIDGET_LIMITS.dataBytes,
  );
  return tooLong ? WIDGET_DATA_TOO_LONG : undefined;
}

const EXTERNAL_URL = /^\s*(?:(?:https?|wss?|ftp):)?\/\//i;
const REFERENCES: RegExp[] = [
  /\b(?:src|href|action|formaction|poster|data)\s*=\s*["']?([^"'\s>]+)/gi,
  /url\(\s*["']?([^"')]+)/gi,
  /@import\s+["']([^"']+)/gi,
];
const NETWORK_APIS = /\b(fetch|XMLHttpRequest|WebSocket|EventSource|navigator\.sendBeacon|importScripts)\s*\(/g;

/**
 * What in a widget's HTML reaches for the network: external URLs in src, href, action and the like, url() and
 * @import, and the network APIs. Telegram sends such a widget (its docs name no refusal) and runs it "with no network
 * access at all", so none of it works: the fake records each as a violation instead of refusing the widget.
 */
export function networkReferences(html: string): string[] {
  const found = new Set<string>();
  for (const pattern of REFERENCES) {
    for (const match of html.matchAll(pattern)) if (EXTERNAL_URL.test(match[1]!)) found.add(match[1]!);
  }
  for (const match of html.matchAll(NETWORK_APIS)) found.add(match[1]!);
  return [...found];
}
