/** A server without the rich methods is believed for a day; a refused answer holds the chat to HTML for an hour. */
const RICH_REFUSED_MS = { missing: 24 * 60 * 60 * 1000, content: 60 * 60 * 1000 };

/**
 * What a chat remembers when Telegram refuses a rich message: until when it uses the HTML path, and why. A 404 means
 * the Bot API server has no rich methods at all.
 */
export function richRefusal(description: string, now: number): { until: number; reason: string } {
  const missing = /^404\b/.test(description);
  return {
    until: now + (missing ? RICH_REFUSED_MS.missing : RICH_REFUSED_MS.content),
    reason: description.slice(0, 300),
  };
}
