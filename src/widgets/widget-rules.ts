/**
 * Telegram's rules for a widget (Bot API 10.4, https://core.telegram.org/bots/widgets and sendWidget): one
 * self-contained HTML document of 1-32,768 bytes and at most 4,096 bytes after zlib, run "with no network access at
 * all"; its chat and public data, and an answer to one of its queries, at most 1,024 bytes each. Checked before a
 * widget is sent, so that a widget Telegram would refuse, or one whose network use would silently fail, is never sent.
 */
export const WIDGET_LIMITS = { htmlBytes: 32_768, compressedBytes: 4_096, dataBytes: 1_024 } as const;

export type WidgetCheck =
  | { ok: true; bytes: number; compressedBytes: number }
  | { ok: false; problem: string; bytes?: number; compressedBytes?: number };

const EXTERNAL = /^\s*(?:(?:https?|wss?|ftp):)?\/\//i;
/** Attributes and CSS that load something by address. */
const REFERENCES: RegExp[] = [
  /\b(?:src|href|action|formaction|poster|data|srcset|background)\s*=\s*["']?([^"'\s>]+)/gi,
  /url\(\s*["']?([^"')\s]+)/gi,
  /@import\s+(?:url\()?\s*["']?([^"')\s;]+)/gi,
];
/** Script that reaches for the network (or loads code from elsewhere). */
const NETWORK_CODE =
  /\b(fetch|XMLHttpRequest|WebSocket|EventSource|navigator\s*\.\s*sendBeacon|importScripts|RTCPeerConnection|Worker)\b|\bimport\s*\(/;

/** The code in a document: its scripts' bodies and its inline event handlers (not its text, which may say "fetch"). */
function scriptsOf(html: string): string[] {
  const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script\s*>/gi)].map((match) => match[1]!);
  const handlers = [...html.matchAll(/\son[a-z]+\s*=\s*("[^"]*"|'[^']*')/gi)].map((match) => match[1]!);
  return [...scripts, ...handlers];
}

/** What in the HTML reaches for the network: addresses outside the document, and the network APIs by name. */
export function networkUses(html: string): string[] {
  const found = new Set<string>();
  for (const pattern of REFERENCES) {
    for (const match of html.matchAll(pattern)) if (EXTERNAL.test(match[1]!)) found.add(match[1]!.slice(0, 80));
  }
  for (const code of scriptsOf(html)) {
    const use = NETWORK_CODE.exec(code);
    if (use) found.add(use[1]?.replace(/\s+/g, "") ?? "import(");
  }
  return [...found];
}

/**
 * Whether `html` may be sent as a widget: its size, its size after zlib (workerd's CompressionStream "deflate" is
 * zlib's format at the default level, a little larger than the level 9 Telegram measures with, so a widget that
 * passes here passes there) and its network use.
 */
export async function checkWidget(html: string): Promise<WidgetCheck> {
  const bytes = new TextEncoder().encode(html);
  if (bytes.length === 0) return { ok: false, problem: "the widget's HTML is empty" };
  if (bytes.length > WIDGET_LIMITS.htmlBytes) {
    return {
      ok: false,
      problem: `the widget's HTML is ${bytes.length} bytes (at most ${WIDGET_LIMITS.htmlBytes})`,
      bytes: bytes.length,
    };
  }
  const compressedBytes = await zlibSize(bytes);
  if (compressedBytes > WIDGET_LIMITS.compressedBytes) {
    return {
      ok: false,
      problem: `the widget's HTML is ${compressedBytes} bytes after compression (at most ${WIDGET_LIMITS.compressedBytes}); make it shorter`,
      bytes: bytes.length,
      compressedBytes,
    };
  }
  const network = networkUses(html);
  if (network.length > 0) {
    return {
      ok: false,
      problem: `a widget runs with no network: remove ${network.join(", ")} (inline everything, no fetch or links out)`,
      bytes: bytes.length,
      compressedBytes,
    };
  }
  return { ok: true, bytes: bytes.length, compressedBytes };
}

/** Whether a widget's state (chat or public data) or a query's answer fits Telegram's 1,024 bytes. */
export function fitsWidgetData(data: string): boolean {
  return new TextEncoder().encode(data).length <= WIDGET_LIMITS.dataBytes;
}

async function zlibSize(bytes: Uint8Array): Promise<number> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate"));
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return size;
    size += value.byteLength;
  }
}
