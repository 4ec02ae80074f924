/**
 * Whether a model sees images (and reads PDFs), by the VISION_MODELS patterns: comma-separated names where `*`
 * matches any run of characters, compared without regard to case. A provider's API gives no way to ask, and an
 * image sent to a text-only model is an API error; a list the owner can extend is the honest middle.
 */
export function seesImages(patterns: readonly string[], model: string): boolean {
  const name = model.toLowerCase();
  return patterns.some((pattern) => globToRegExp(pattern.toLowerCase()).test(name));
}

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${escaped}$`);
}
