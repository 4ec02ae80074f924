import type { Token, Tokens } from "marked";

/**
 * Telegram's documented limits on one rich message (Bot API 10.1, "Rich Message Limits"): 32,768 characters of text
 * (formula source included), 500 blocks counting nested blocks, list items and table rows, 16 levels of nested
 * blocks and formatting, 20 table columns.
 */
export const RICH_LIMITS = { characters: 32_768, blocks: 500, depth: 16, columns: 20 } as const;

/**
 * What one piece is cut to, under the limits with room to spare: a piece's Markdown source is never shorter than
 * the text Telegram counts (markup and entity references only add to it), and a streamed piece gets a status line.
 */
export const RICH_BUDGET = { characters: 30_000, blocks: 480, depth: RICH_LIMITS.depth } as const;

export interface RichMeasure {
  blocks: number;
  depth: number;
  columns: number;
}

/** HTML tags that Telegram's rich HTML counts as blocks (those the rich Markdown lets through: see rich-markdown.ts). */
const BLOCK_TAGS = new Set(["details", "tg-thinking", "p", "blockquote", "pre", "ul", "ol", "li", "table", "tr"]);
const CONTAINER_TAGS = new Set(["details", "tg-thinking", "blockquote"]);

/**
 * Blocks, depth and columns of lexed rich Markdown, counted as the documentation says: every block, each list item
 * and table row, the blocks inside quotes, list items and HTML containers (`<details>` … `</details>` around Markdown),
 * and inline formatting nested inside them.
 */
export function measureTokens(tokens: readonly Token[], level = 0): RichMeasure {
  const measure: RichMeasure = { blocks: 0, depth: 0, columns: 0 };
  const block = (at: number) => {
    measure.blocks += 1;
    measure.depth = Math.max(measure.depth, at + 1);
  };
  const inline = (inner: readonly Token[], at: number) => {
    for (const token of inner) {
      const nested = (token as { tokens?: Token[] }).tokens;
      if (nested && nested.length > 0) {
        measure.depth = Math.max(measure.depth, at + 1);
        inline(nested, at + 1);
      }
    }
  };
  const add = (inner: RichMeasure) => {
    measure.blocks += inner.blocks;
    measure.depth = Math.max(measure.depth, inner.depth);
    measure.columns = Math.max(measure.columns, inner.columns);
  };
  // Containers opened by HTML blocks: what follows them is inside, one level deeper.
  let open = 0;
  for (const token of tokens) {
    const at = level + open;
    switch (token.type) {
      case "space":
        break;
      case "html": {
        const html = measureHtml(token.raw);
        measure.blocks += html.blocks;
        measure.depth = Math.max(measure.depth, at + html.depth);
        open = Math.max(0, open + html.balance);
        if (open > 0) measure.depth = Math.max(measure.depth, level + open);
        break;
      }
      case "blockquote":
        block(at);
        add(measureTokens((token as Tokens.Blockquote).tokens, at + 1));
        break;
      case "list":
        block(at);
        for (const item of (token as Tokens.List).items) {
          block(at + 1);
          add(measureTokens(item.tokens, at + 2));
        }
        break;
      case "table": {
        const table = token as Tokens.Table;
        block(at);
        measure.columns = Math.max(measure.columns, table.header.length);
        for (const row of [table.header, ...table.rows]) {
          block(at + 1);
          for (const cell of row) inline(cell.tokens, at + 2);
        }
        break;
      }
      case "code":
        block(at);
        break;
      case "text":
        // A tight list item's text: part of the item, not a block of its own.
        inline((token as Tokens.Text).tokens ?? [], at);
        break;
      default: {
        block(at);
        const nested = (token as { tokens?: Token[] }).tokens;
        if (nested) inline(nested, at + 1);
      }
    }
  }
  return measure;
}

/** An HTML block's blocks, its tags' nesting, and how many containers it leaves open (or closes: negative). */
function measureHtml(html: string): { blocks: number; depth: number; balance: number } {
  let blocks = 0;
  let depth = 0;
  let balance = 0;
  const stack: string[] = [];
  for (const match of html.matchAll(/<(\/?)([a-zA-Z][\w-]*)[^>]*?(\/?)>/g)) {
    const tag = match[2]!.toLowerCase();
    if (match[1]) {
      const index = stack.lastIndexOf(tag);
      if (index !== -1) stack.length = index;
      if (CONTAINER_TAGS.has(tag)) balance -= 1;
      continue;
    }
    if (BLOCK_TAGS.has(tag)) blocks += 1;
    depth = Math.max(depth, stack.length + 1);
    if (match[3] || tag === "br" || tag === "hr") continue;
    stack.push(tag);
    if (CONTAINER_TAGS.has(tag)) balance += 1;
  }
  return { blocks, depth, balance };
}
