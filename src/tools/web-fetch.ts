import * as z from "zod";
import { errorText } from "../lib/errors.ts";
import { addressesIn } from "./outward-policy.ts";
import { blockedHostReason } from "./public-address.ts";
import { defineTool, ToolError } from "./registry.ts";

const MAX_REDIRECTS = 5;
const TIMEOUT_MS = 15_000;
const MAX_BYTES = 2_000_000;
const MAX_FETCH_TEXT = 20_000;

const TEXT_TYPES =
  /^(text\/|application\/(json|xml|xhtml\+xml|rss\+xml|atom\+xml|ld\+json|javascript)|[^;]*\+(json|xml))/i;
const SKIPPED = "script, style, noscript, template, svg, canvas, iframe, head > :not(title)";
const BLOCKS =
  "p, div, br, li, tr, h1, h2, h3, h4, h5, h6, section, article, header, footer, blockquote, pre, table, ul, ol, hr";

export const webFetch = defineTool({
  name: "web_fetch",
  description:
    "Fetch a web page (http or https) and return its readable text (HTML reduced to text, at most 20,000 characters). " +
    "Only text content (HTML, plain text, JSON, XML) can be read.",
  schema: z.object({ url: z.string().max(2000).describe("The page's absolute http(s) URL.") }),
  available: (settings) => settings.webFetch.enabled,
  sendsOut: ({ url }) => ({ kind: "fetch", address: url }),
  async handler({ url }, context) {
    // A page can carry instructions: from here on this turn may not act beyond its chat.
    context.trust.markUntrusted("a web page");
    const privateHosts = context.settings.webFetch.privateHosts;
    let current = parseHttpUrl(url, privateHosts);
    const deadline = AbortSignal.timeout(TIMEOUT_MS);
    let response: Response | undefined;
    for (let redirects = 0; ; redirects++) {
      try {
        response = await fetch(current, {
          redirect: "manual",
          signal: deadline,
          headers: {
            accept: "text/html, text/plain, application/json, application/xml;q=0.9, */*;q=0.1",
            "user-agent": "telegram-edge-agent/0.1 (web_fetch)",
          },
        });
      } catch (error) {
        if (deadline.aborted) throw new ToolError(`${current} did not answer within ${TIMEOUT_MS / 1000} s.`);
        throw new ToolError(`Could not fetch ${current}: ${errorText(error)}.`);
      }
      const location = response.headers.get("location");
      if (response.status < 300 || response.status >= 400 || !location) break;
      await response.body?.cancel();
      if (redirects >= MAX_REDIRECTS) throw new ToolError(`${url} redirects more than ${MAX_REDIRECTS} times.`);
      current = parseHttpUrl(new URL(location, current).toString(), privateHosts);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new ToolError(`${current} answered ${response.status} ${response.statusText}.`);
    }
    const type = response.headers.get("content-type") ?? "";
    if (type !== "" && !TEXT_TYPES.test(type)) {
      await response.body?.cancel();
      throw new ToolError(`${current} is ${type.split(";")[0]}, not text; web_fetch reads only text pages.`);
    }
    const body = await readLimited(response, MAX_BYTES, deadline);
    const isHtml = /html/i.test(type) || (type === "" && /<html[\s>]/i.test(body.slice(0, 2000)));
    const text = isHtml ? await htmlToText(body) : body;
    const tidy = text
      .replace(/[ \t\f\v\u00a0]+/g, " ")
      .replace(/ *\n */g, "\n")
      .replace(/\n{3,}/g, "\n\n")
      .trim();
    const truncated = tidy.length > MAX_FETCH_TEXT;
    // The page's own links may be followed without asking: fetching one composes nothing.
    context.trust.noteShown(addressesIn(tidy.slice(0, MAX_FETCH_TEXT)));
    return {
      content: `${current}\n\n${truncated ? `${tidy.slice(0, MAX_FETCH_TEXT)}\n\n[truncated at ${MAX_FETCH_TEXT} characters]` : tidy || "(the page has no text)"}`,
    };
  },
});

/** An absolute http(s) URL to a public host (or one of `privateHosts`, host:port, for local dev), normalised. */
function parseHttpUrl(text: string, privateHosts: ReadonlySet<string>): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolError(`"${text}" is not an absolute URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ToolError(`Only http and https URLs can be fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new ToolError("URLs with credentials are not fetched.");
  const blocked = blockedHostReason(url.hostname);
  if (blocked !== undefined && !privateHosts.has(url.host)) {
    throw new ToolError(`${url.host} is not fetched: ${blocked}. Only public web pages can be read.`);
  }
  return url.toString();
}

/** The body as text, read up to `limit` bytes; the rest is dropped. */
async function readLimited(response: Response, limit: number, signal: AbortSignal): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      if (signal.aborted) throw new ToolError(`The page did not finish loading within ${TIMEOUT_MS / 1000} s.`);
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(Math.min(size, limit));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, Math.min(chunk.byteLength, bytes.byteLength - offset));
    bytes.set(part, offset);
    offset += part.byteLength;
    if (offset >= bytes.byteLength) break;
  }
  return new TextDecoder().decode(bytes);
}

/** Readable text of an HTML page with the runtime's streaming HTMLRewriter: scripts and styles dropped, blocks on lines. */
async function htmlToText(html: string): Promise<string> {
  const parts: string[] = [];
  let skipping = 0;
  const rewriter = new HTMLRewriter()
    .on(SKIPPED, {
      element(element) {
        // Void elements (<meta>, <link>) have no content to skip, and no end tag to wait for.
        if (!onEndTag(element, () => skipping--)) return;
        skipping++;
      },
    })
    .on(BLOCKS, {
      element(element) {
        parts.push("\n");
        onEndTag(element, () => parts.push("\n"));
      },
    })
    .onDocument({
      text(chunk) {
        if (skipping === 0) parts.push(chunk.text);
      },
    });
  await rewriter.transform(new Response(html, { headers: { "content-type": "text/html" } })).text();
  return decodeEntities(parts.join(""));
}

/** Registers `handler` for the element's end tag; false for void elements, which have none. */
function onEndTag(element: Element, handler: () => void): boolean {
  if ((element as Element & { canHaveContent?: boolean }).canHaveContent === false) return false;
  try {
    element.onEndTag(() => {
      handler();
    });
    return true;
  } catch {
    return false;
  }
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = {
    amp: "&",
    lt: "<",
    gt: ">",
    quot: '"',
    apos: "'",
    nbsp: " ",
    mdash: "—",
    ndash: "–",
    hellip: "…",
  };
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return named[name.toLowerCase()] ?? entity;
  });
}
