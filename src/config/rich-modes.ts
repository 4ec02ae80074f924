/**
 * When an answer is a rich message (Bot API 10.1) rather than Telegram HTML: `auto` when it has structure HTML cannot
 * show (tables, headings, task lists, math, footnotes, details) or is longer than one message; `always`; `off`.
 */
export const RICH_MODES = ["auto", "always", "off"] as const;
export type RichMode = (typeof RICH_MODES)[number];
