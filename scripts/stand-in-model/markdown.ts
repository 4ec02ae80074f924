/** Text from elsewhere (a page, a search result, a stored message) put into the stand-in's Markdown answers. */

/** The text as it reads, with Markdown's and HTML's special characters escaped, on one line. */
export function literal(text: string): string {
  return text
    .replace(/\s+/g, " ")
    .trim()
    .replace(/[\\`*_[\]<>|~$#]/g, (char) => `\\${char}`);
}

/** A Markdown link whose text and address cannot break out of it. */
export function link(text: string, url: string): string {
  return `[${literal(text)}](${url.replace(/[\s()<>]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`)})`;
}

/** At most `max` characters, an ellipsis marking a cut. */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
