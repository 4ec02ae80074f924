/**
 * Reads a skill file's YAML front matter: a mapping of top-level keys. Scalars are read as YAML's JSON schema reads
 * them (plain, 'single' and "double" quoted, literal `|` and folded `>` blocks with their chomping; `null`, `true`,
 * `false` and JSON numbers typed); a nested block or a flow collection is kept as an empty object or array of its kind, since only
 * `name`, `description` and `always` are read and the others (`license`, `metadata`, `allowed-tools`, ...) are
 * ignored. Tags, anchors and aliases are refused: nothing in a skill file runs or refers. Written here rather than with
 * js-yaml: a full YAML parser is 14 KiB gzip of the Worker's 250 KiB budget (issue 41) for three keys.
 */

/** Front matter that is not the YAML this reads, with the line it is on. */
export class FrontMatterError extends Error {
  override readonly name = "FrontMatterError";
}

const KEY_LINE =
  /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"{[\]}&*!|>%@`-][^:#]*?|-[^\s:#][^:#]*?)[ \t]*:(?:[ \t]+(.*))?$/;
const BLOCK_HEADER = /^([|>])([+-]?)[1-9]?([+-]?)[ \t]*(?:#.*)?$/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d*)?(?:[eE][-+]?\d+)?$/;

export function readFrontMatter(text: string): Record<string, unknown> {
  const lines = text.split(/\r?\n/);
  const out: Record<string, unknown> = {};
  let index = 0;
  const fail = (line: number, problem: string): never => {
    throw new FrontMatterError(`line ${line + 1}: ${problem}`);
  };
  /** The lines after `index` that belong to the current key: blank ones and indented ones. */
  const continuation = (): string[] => {
    const taken: string[] = [];
    while (index + 1 < lines.length) {
      const next = lines[index + 1]!;
      if (next.trim() !== "" && !/^[ \t]/.test(next) && !next.startsWith("- ") && next !== "-") break;
      taken.push(next);
      index++;
    }
    while (taken.length > 0 && taken.at(-1)!.trim() === "") taken.pop();
    return taken;
  };
  for (; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    if (/^[ \t]/.test(line)) fail(index, "indented where a key was expected");
    const match = KEY_LINE.exec(line);
    if (!match) fail(index, "expected `key: value`");
    const key = unquoteKey(match![1]!);
    if (Object.hasOwn(out, key)) fail(index, `the key ${key} is given twice`);
    const start = index;
    const rest = (match![2] ?? "").trim();
    try {
      out[key] = valueAfter(rest, continuation);
    } catch (error) {
      if (error instanceof FrontMatterError) throw error;
      fail(start, error instanceof Error ? error.message : String(error));
    }
  }
  return out;
}

function valueAfter(rest: string, continuation: () => string[]): unknown {
  if (rest === "" || rest.startsWith("#")) {
    const nested = continuation().filter((line) => line.trim() !== "" && !line.trimStart().startsWith("#"));
    if (nested.length === 0) return "";
    return nested[0]!.trimStart().startsWith("- ") || nested[0]!.trim() === "-" ? [] : {};
  }
  const first = rest[0]!;
  if (first === "!" || first === "&" || first === "*") throw new Error("tags, anchors and aliases are not allowed");
  if (first === "|" || first === ">") {
    const header = BLOCK_HEADER.exec(rest);
    if (!header) throw new Error(`a block scalar's header is ${rest}`);
    return blockScalar(continuation(), header[1] === ">", header[2] || header[3] || "");
  }
  if (first === '"' || first === "'") return quoted([rest, ...continuation().map((line) => line.trim())], first);
  if (first === "[" || first === "{") {
    const text = [rest, ...continuation().map((line) => line.trim())].join(" ");
    if (!balanced(text)) throw new Error("a flow collection ([…] or {…}) is not closed");
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return first === "[" ? [] : {};
    }
  }
  const plain = [rest, ...continuation().map((line) => line.trim())]
    .join(" ")
    .replace(/[ \t]+#.*$/, "")
    .trim();
  if (/:[ \t]/.test(plain) || plain.endsWith(":")) throw new Error("a value with `: ` in it must be quoted");
  return typed(plain);
}

/** Literal (`|`) or folded (`>`) lines, their common indentation removed, chomped: clip, strip (`-`) or keep (`+`). */
function blockScalar(lines: string[], folded: boolean, chomping: string): string {
  const indent = Math.min(...lines.filter((line) => line.trim() !== "").map((line) => /^ */.exec(line)![0].length));
  const content = lines.map((line) => line.slice(Number.isFinite(indent) ? indent : 0));
  let text = "";
  let previous: string | undefined;
  let empty = 0;
  for (const line of content) {
    if (line === "") {
      empty++;
      continue;
    }
    if (previous === undefined) text = "\n".repeat(empty) + line;
    // Folded: a break between two lines of text is a space, and each empty line between them one newline.
    else if (folded && !/^\s/.test(line) && !/^\s/.test(previous))
      text += empty === 0 ? ` ${line}` : "\n".repeat(empty) + line;
    else text += "\n".repeat(empty + 1) + line;
    previous = line;
    empty = 0;
  }
  const body = text.replace(/\n+$/, "");
  if (chomping === "-") return body;
  if (chomping === "+") return `${text}\n`;
  return body === "" ? "" : `${body}\n`;
}

/** A quoted scalar over one or more lines (folded with spaces): '' in single quotes, JSON-like escapes in double. */
function quoted(lines: string[], quote: string): string {
  const text = lines.join(" ");
  const pattern = quote === "'" ? /^'((?:[^']|'')*)'[ \t]*(?:#.*)?$/ : /^"((?:[^"\\]|\\.)*)"[ \t]*(?:#.*)?$/;
  const match = pattern.exec(text);
  if (!match) throw new Error("a quoted value is not closed, or text follows its closing quote");
  if (quote === "'") return match[1]!.replaceAll("''", "'");
  return match[1]!.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/g, (_all, code: string) => {
    if (code.length > 1) return String.fromCodePoint(Number.parseInt(code.slice(1), 16));
    const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", "0": "\0", b: "\b", f: "\f", e: "\x1b" };
    return simple[code] ?? code;
  });
}

/** A plain scalar as YAML's JSON schema types it (as js-yaml's JSON_SCHEMA did): only JSON's spellings. */
function typed(plain: string): unknown {
  if (plain === "null") return null;
  if (plain === "true") return true;
  if (plain === "false") return false;
  if (NUMBER.test(plain)) return Number(plain);
  return plain;
}

function unquoteKey(key: string): string {
  if (key.startsWith('"')) return quoted([key], '"');
  if (key.startsWith("'")) return quoted([key], "'");
  return key;
}

/** Whether every bracket of a flow collection is closed, in order (quoted text aside). */
function balanced(text: string): boolean {
  const open: string[] = [];
  const unquoted = text.replace(/"(?:[^"\\]|\\.)*"|'(?:[^']|'')*'/g, "");
  for (const char of unquoted) {
    if (char === "[" || char === "{") open.push(char === "[" ? "]" : "}");
    else if ((char === "]" || char === "}") && open.pop() !== char) return false;
  }
  return open.length === 0 && /[\]}][ \t]*(?:#.*)?$/.test(unquoted);
}
