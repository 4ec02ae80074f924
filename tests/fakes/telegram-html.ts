/**
 * Telegram's HTML parse mode, as strictly as Telegram applies it: only its tags, properly nested and closed, and only
 * the entities it knows. A text it would refuse gets the same 400 from the fake ("can't parse entities").
 */
const TAGS = new Set([
  "b",
  "strong",
  "i",
  "em",
  "u",
  "ins",
  "s",
  "strike",
  "del",
  "span",
  "tg-spoiler",
  "a",
  "tg-emoji",
  "code",
  "pre",
  "blockquote",
]);

export function htmlProblem(html: string): string | undefined {
  const open: string[] = [];
  const token = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>|&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);|[<>]|&/g;
  for (let match = token.exec(html); match !== null; match = token.exec(html)) {
    const [whole, closing, name, attributes, entity] = match;
    if (entity !== undefined) {
      if (!/^(lt|gt|amp|quot|#\d+|#x[0-9a-fA-F]+)$/.test(entity)) return `unsupported entity ${whole}`;
      continue;
    }
    if (name === undefined) {
      if (whole === "&") continue;
      return `unexpected "${whole}"`;
    }
    const tag = name.toLowerCase();
    if (!TAGS.has(tag)) return `unsupported start tag "${tag}"`;
    if (closing) {
      if (open.pop() !== tag) return `unmatched end tag "${tag}"`;
      continue;
    }
    if (tag === "a" && !/^\s+href="[^"]*"\s*$/.test(attributes ?? "")) return "a tag needs exactly an href";
    open.push(tag);
  }
  return open.length > 0 ? `unclosed start tag "${open.at(-1)}"` : undefined;
}
