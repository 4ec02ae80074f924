/** Masks anything that looks like an API key, a bearer token or a bot token before a text is shown or logged. */
export function redactSecrets(text: string): string {
  return text
    .replace(/\b(sk|pk|rk)-[A-Za-z0-9_*-]{6,}/g, "$1-…")
    .replace(/\bbearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, "Bearer …")
    .replace(/\b\d{6,12}:[A-Za-z0-9_-]{30,}\b/g, "…");
}
