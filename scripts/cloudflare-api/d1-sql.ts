/**
 * D1 reads a request's SQL as SQLite does: statement by statement (`;` outside strings, identifiers, comments and a
 * trigger's BEGIN … END), each held to D1's limits before it runs. These are the pieces the fake needs for that: the
 * split, and the bound-parameter tokens of a statement with their offsets (SQLite reports "too many SQL variables at
 * offset N", the offset of the variable past the limit).
 */
export interface SqlStatement {
  text: string;
  /** Where it starts in the request's SQL. */
  offset: number;
}

export function splitStatements(sql: string): SqlStatement[] {
  const statements: SqlStatement[] = [];
  let start = 0;
  let index = 0;
  let depth = 0;
  let trigger: boolean | undefined;
  const flush = (end: number) => {
    const text = sql.slice(start, end);
    if (stripComments(text).trim() !== "") statements.push({ text: text.trim(), offset: start + leading(text) });
    start = end + 1;
    depth = 0;
    trigger = undefined;
  };
  while (index < sql.length) {
    const char = sql[index]!;
    const skipped = skipQuotedOrComment(sql, index);
    if (skipped !== index) {
      index = skipped;
      continue;
    }
    if (/[A-Za-z_]/.test(char)) {
      let end = index;
      while (end < sql.length && /[A-Za-z0-9_$]/.test(sql[end]!)) end++;
      const word = sql.slice(index, end).toUpperCase();
      // Whether this statement creates a trigger decides whether BEGIN/CASE … END nest (only there does `;` not end
      // the statement inside them).
      if (trigger === undefined)
        trigger = /^\s*CREATE\s+(TEMP\s+|TEMPORARY\s+)?TRIGGER\b/i.test(stripComments(sql.slice(start, sql.length)));
      if (trigger && (word === "BEGIN" || word === "CASE")) depth++;
      if (trigger && word === "END") depth--;
      index = end;
      continue;
    }
    if (char === ";" && depth <= 0) flush(index);
    index++;
  }
  flush(sql.length);
  return statements;
}

/** The offsets of a statement's parameter tokens (`?`, `?NNN`, `:name`, `@name`, `$name`), with `?NNN`'s number. */
export function parameterTokens(statement: string): { offset: number; number?: number }[] {
  const tokens: { offset: number; number?: number }[] = [];
  let index = 0;
  while (index < statement.length) {
    const skipped = skipQuotedOrComment(statement, index);
    if (skipped !== index) {
      index = skipped;
      continue;
    }
    const char = statement[index]!;
    if (char === "?") {
      let end = index + 1;
      while (end < statement.length && /[0-9]/.test(statement[end]!)) end++;
      tokens.push({ offset: index, ...(end > index + 1 ? { number: Number(statement.slice(index + 1, end)) } : {}) });
      index = end;
      continue;
    }
    if ((char === ":" || char === "@" || char === "$") && /[A-Za-z_]/.test(statement[index + 1] ?? "")) {
      tokens.push({ offset: index });
      index += 2;
      while (index < statement.length && /[A-Za-z0-9_]/.test(statement[index]!)) index++;
      continue;
    }
    index++;
  }
  return tokens;
}

/** Past a string, quoted identifier or comment starting at `index` (or `index` itself when none starts there). */
function skipQuotedOrComment(sql: string, index: number): number {
  const char = sql[index]!;
  const close = char === "'" ? "'" : char === '"' ? '"' : char === "`" ? "`" : char === "[" ? "]" : undefined;
  if (close) {
    let end = index + 1;
    while (end < sql.length) {
      if (sql[end] === close) {
        // A doubled quote is an escaped one ('it''s'); brackets have no escape.
        if (close !== "]" && sql[end + 1] === close) {
          end += 2;
          continue;
        }
        return end + 1;
      }
      end++;
    }
    return sql.length;
  }
  if (char === "-" && sql[index + 1] === "-") {
    const end = sql.indexOf("\n", index);
    return end < 0 ? sql.length : end + 1;
  }
  if (char === "/" && sql[index + 1] === "*") {
    const end = sql.indexOf("*/", index + 2);
    return end < 0 ? sql.length : end + 2;
  }
  return index;
}

function stripComments(sql: string): string {
  let out = "";
  let index = 0;
  while (index < sql.length) {
    const skipped = skipQuotedOrComment(sql, index);
    if (skipped !== index) {
      const piece = sql.slice(index, skipped);
      out += piece.startsWith("--") || piece.startsWith("/*") ? " " : piece;
      index = skipped;
      continue;
    }
    out += sql[index];
    index++;
  }
  return out;
}

function leading(text: string): number {
  return text.length - text.trimStart().length;
}
