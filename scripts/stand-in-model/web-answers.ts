/**
 * The stand-in model looking something up, as a model would through the bot's tools: a question about news or a
 * request to search becomes a `web_search`; from its results it reads the one that matches the query best with
 * `web_fetch`; then it answers with the page's first lines and links to every result. Plain, erasable TypeScript.
 */
import type { StandInReply, ToolStep } from "./conversation.ts";
import { cut, link, literal } from "./markdown.ts";

interface WebResult {
  title: string;
  url: string;
  date: string | undefined;
  snippet: string;
}

const TIME = /\b(today|yesterday|lately|recently|(?:this|last|past) (?:week|month|year))\b/i;

/** What to search the web for, when the person asks about news or asks to search; else undefined. */
export function webQuery(said: string): string | undefined {
  const direct = /\b(?:search (?:the web |online )?for|look up|google)\s+(.+)/i.exec(said)?.[1];
  if (direct) return clean(direct) || undefined;
  const topic =
    /\bwhat(?:'s|’s| is) (?:new|happening|the latest)\s+(?:with|in|about|on|at)\s+(.+)/i.exec(said)?.[1] ??
    /\b(?:latest |recent )?news (?:about|on|from)\s+(.+)/i.exec(said)?.[1];
  if (!topic) return undefined;
  const when = TIME.exec(topic)?.[1]?.toLowerCase();
  const subject = clean(topic.replace(TIME, " ")).replace(/^the\s+/i, "");
  if (subject === "") return undefined;
  return when ? `${subject} news ${when}` : `${subject} news`;
}

/** After `web_search`: read the best result with `web_fetch` when it is offered, else answer from the results. */
export function afterWebSearch(search: ToolStep, toolNames: readonly string[]): StandInReply {
  const query = String(search.arguments.query ?? "");
  if (search.failed)
    return { kind: "text", text: `I asked \`web_search\` for “${literal(query)}”; it said: ${search.result}` };
  const results = parseResults(search.result);
  const best = bestResult(results, query);
  if (best && toolNames.includes("web_fetch")) return { kind: "tool", name: "web_fetch", arguments: { url: best.url } };
  if (results.length === 0) return { kind: "text", text: `\`web_search\` found nothing for “${literal(query)}”.` };
  return {
    kind: "text",
    text: [
      `\`web_search\` found this for “${literal(query)}” (\`web_fetch\` is off, so I read none of them):`,
      "",
      ...results.map(item),
    ].join("\n"),
  };
}

/** After `web_fetch`: what the page says first, and links to it and the other results. */
export function afterWebFetch(fetch: ToolStep, search: ToolStep | undefined): string {
  const query = String(search?.arguments.query ?? "");
  const results = search ? parseResults(search.result) : [];
  const url = String(fetch.arguments.url ?? "");
  const read = results.find((result) => result.url === url) ?? { title: url, url, date: undefined, snippet: "" };
  const others = results.filter((result) => result !== read);
  const lines = [
    search
      ? `I searched the web with \`web_search\` (“${literal(query)}”) and read the best result with \`web_fetch\`:`
      : "I read the page with `web_fetch`:",
    "",
    `**${link(read.title, read.url)}**${read.date ? ` · ${read.date}` : ""}`,
    "",
  ];
  if (fetch.failed) lines.push(`It could not be read: ${literal(fetch.result.replace(/^error:\s*/i, ""))}`);
  else lines.push(...pageLines(fetch.result, read.title).map((line) => `- ${literal(line)}`));
  if (others.length > 0) lines.push("", "Other results:", ...others.map(item));
  return lines.join("\n");
}

/** The results as web_search lists them: "1. title", then the URL, then "date · snippet" (src/tools/web-search.ts). */
function parseResults(content: string): WebResult[] {
  return [...content.matchAll(/^\d+\. (.+)\n {3}(\S+)\n {3}(.*)$/gm)].map((match) => {
    const dated = /^(\d{4}-\d{2}-\d{2}) · (.*)$/.exec(match[3]!);
    return { title: match[1]!, url: match[2]!, date: dated?.[1], snippet: dated ? dated[2]! : match[3]! };
  });
}

/** The result sharing the most words with the query; the earlier one (the backend ranks them) on a tie. */
function bestResult(results: readonly WebResult[], query: string): WebResult | undefined {
  const words = wordsOf(query).filter((word) => word.length > 2);
  let best: { result: WebResult; score: number } | undefined;
  for (const result of results) {
    const text = new Set(wordsOf(`${result.title} ${result.snippet}`));
    const score = words.filter((word) => text.has(word)).length;
    if (!best || score > best.score) best = { result, score };
  }
  return best?.result;
}

/** The first lines of a fetched page's text (after its URL), its title left out: at most six, 800 characters. */
function pageLines(content: string, title: string): string[] {
  const bare = title.replace(/\s*\(stand-in search\)$/, "");
  const kept: string[] = [];
  let length = 0;
  for (const line of content.split("\n").slice(1)) {
    const text = line.replace(/^[-•*]\s+/, "").trim();
    if (text === "" || text === title || text === bare) continue;
    if (kept.length >= 6 || length + text.length > 800) break;
    kept.push(cut(text, 300));
    length += text.length;
  }
  return kept.length > 0 ? kept : ["(the page has no text)"];
}

function item(result: WebResult): string {
  return `- ${link(result.title, result.url)}${result.date ? ` · ${result.date}` : ""}`;
}

function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function clean(text: string): string {
  return text
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[?.!,;:]+$/, "")
    .trim();
}
