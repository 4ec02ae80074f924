/**
 * The stand-in model finding something said before, as a model would through the bot's `search_history`: "what did I
 * say my locker code was?" becomes a search for "locker code", and the answer quotes the message found, with its date
 * and who wrote it. Plain, erasable TypeScript.
 */
import type { ToolStep } from "./conversation.ts";
import { literal } from "./markdown.ts";

const ASKS_HISTORY = [
  /\b(?:what|when|where|how|which) did (?:i|we|you|he|she|they) (?:say|tell|write|mention|decide|agree|pick|choose|call)\b/i,
  /\b(?:did|have) (?:i|we) (?:ever )?(?:say|said|mention|mentioned|talk|talked)\b/i,
  /\b(?:search|find|look through) (?:the |our |my |this )?(?:chat|history|conversation|messages)\b/i,
];

/** Words of a question that say how it is asked, not what is looked for: left out of the search. */
const FILLER = new Set(
  (
    "what when where how which who did do does have has had i we you he she they me us my our your his her their the " +
    "a an is was were be been that this it its say said tell told write wrote mention mentioned decide decided agree " +
    "agreed pick picked choose chose call called about of for on in to at ever again search find look through chat " +
    "history conversation messages message earlier before ago talk talked"
  ).split(" "),
);

/** The words to search the chat's history for, when the person asks about something said before; else undefined. */
export function historyQuery(said: string): string | undefined {
  if (!ASKS_HISTORY.some((pattern) => pattern.test(said))) return undefined;
  // In a group the bot sees "Name: text"; the name is not what is looked for.
  const words = (
    said
      .replace(/^[^:\n]{1,64}: /, "")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).filter((word) => !FILLER.has(word));
  return words.length > 0 ? [...new Set(words)].join(" ") : undefined;
}

interface Hit {
  id: string;
  when: string;
  role: string;
  text: string;
}

/** After `search_history`: the message that answers, quoted with when and by whom; the question itself left out. */
export function afterHistorySearch(search: ToolStep, said: string): string {
  const query = String(search.arguments.query ?? "");
  if (search.failed) return `I asked \`search_history\` for “${literal(query)}”; it said: ${search.result}`;
  const zone = /times in ([^)]+)\)/.exec(search.result)?.[1];
  const hits = parseHits(search.result);
  const group = /^[^:\n]{1,64}: /.test(said);
  const asked = normal(said);
  const candidates = hits.filter((hit) => normal(hit.text) !== asked);
  const found =
    candidates.find((hit) => hit.role === "user" && !hit.text.trim().endsWith("?")) ??
    candidates.find((hit) => hit.role === "user") ??
    candidates[0];
  if (!found) {
    return `I searched this chat's whole history with \`search_history\` (“${literal(query)}”) and found no message about it.`;
  }
  const sender = group && found.role === "user" ? /^([^:\n]{1,64}): ([\s\S]*)$/.exec(found.text) : null;
  const who = found.role === "assistant" ? "I" : sender ? `**${literal(sender[1]!)}**` : "you";
  const text = sender ? sender[2]! : found.text;
  const [day, time] = found.when.split(" ");
  return [
    `Found it with \`search_history\` (“${literal(query)}”): on ${day} at ${time}${zone ? ` (${literal(zone)})` : ""} ${who} said:`,
    "",
    `> ${literal(text)}`,
    "",
    `(message #${found.id} of this chat's history, among ${hits.length} match${hits.length === 1 ? "" : "es"})`,
  ].join("\n");
}

/** The hits as search_history lists them: "[#id · YYYY-MM-DD HH:MM · role] text" (src/tools/history-search.ts). */
function parseHits(content: string): Hit[] {
  return content.split(/\n(?=\[#\d+ · )/).flatMap((part) => {
    const match = /^\[#(\d+) · ([\d-]+ [\d:]+) · (\w+)\] ([\s\S]*)$/.exec(part);
    return match ? [{ id: match[1]!, when: match[2]!, role: match[3]!, text: match[4]! }] : [];
  });
}

function normal(text: string): string {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(" ");
}
