/**
 * Half-written Markdown (an answer as it streams) made into a valid, stable whole, so that a rich draft or a streamed
 * rich message shows what is there as it will look: an open code fence is closed, a table's half-written last row is
 * left out (a table appears once its header and alignment rows have arrived, and grows a row at a time), an open
 * `<details>` is closed, an unclosed `$$` formula, a half-written tag, `**` or code span are held back or closed.
 */
export function repairPartial(markdown: string): string {
  let text = markdown.replace(/\r\n?/g, "\n");
  const lines = text.split("\n");
  const fence = openFence(lines);
  if (fence) return `${text.replace(/\n?$/, "\n")}${fence}`;

  // The last line is still being written when the text does not end with a line break.
  if (!text.endsWith("\n") && lines.length > 0 && isTableRow(lines.at(-1)!)) lines.pop();
  // Trailing table lines without their alignment row are no table yet.
  let start = lines.length;
  while (start > 0 && isTableRow(lines[start - 1]!)) start--;
  const trailing = lines.slice(start);
  if (trailing.length > 0 && !(trailing.length >= 2 && isDelimiterRow(trailing[1]!))) lines.length = start;
  text = lines.join("\n");

  // A half-written tag at the very end.
  text = text.replace(/<\/?[A-Za-z][^<>\n]*$/, "");
  const outside = withoutCode(text);
  // An unclosed display formula waits for its end.
  const displays = outside.match(/\$\$/g)?.length ?? 0;
  if (displays % 2 === 1) text = text.slice(0, text.lastIndexOf("$$"));

  const last = withoutCode(text.slice(lastParagraphStart(text)));
  if ((last.match(/\*\*/g)?.length ?? 0) % 2 === 1) text += "**";
  if ((text.slice(lastParagraphStart(text)).match(/`+/g) ?? []).filter((run) => run.length === 1).length % 2 === 1) {
    text += "`";
  }
  const opened = (outside.match(/<details\b[^>]*>/gi)?.length ?? 0) - (outside.match(/<\/details>/gi)?.length ?? 0);
  for (let index = 0; index < opened; index++) text += "\n\n</details>";
  return text;
}

/** The Markdown with a code fence left open at its end closed (so that what is appended is not code). */
export function closeOpenFence(markdown: string): string {
  const fence = openFence(markdown.split("\n"));
  return fence ? `${markdown.replace(/\n?$/, "\n")}${fence}` : markdown;
}

/** The closing fence for a fence left open at the end of these lines, if one is. */
function openFence(lines: string[]): string | undefined {
  let open: string | undefined;
  for (const line of lines) {
    const match = /^(?:[ \t]*(?:>[ \t]?|(?:[-*+]|\d{1,9}[.)])[ \t]+))*[ \t]{0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (!match) continue;
    const marker = match[1]!;
    if (!open) {
      if (!(marker[0] === "`" && match[2]!.includes("`"))) open = marker;
    } else if (marker[0] === open[0] && marker.length >= open.length && match[2]!.trim() === "") {
      open = undefined;
    }
  }
  return open;
}

function isTableRow(line: string): boolean {
  return /^\s*\|/.test(line);
}

function isDelimiterRow(line: string): boolean {
  return /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/.test(line);
}

function lastParagraphStart(text: string): number {
  const match = /\n[ \t]*\n(?![\s\S]*\n[ \t]*\n)/.exec(text);
  return match ? match.index + match[0].length : 0;
}

/** The text with code spans blanked (so that markers inside code are not counted). */
function withoutCode(text: string): string {
  return text.replace(/(`+)[\s\S]*?\1/g, (span) => " ".repeat(span.length));
}
