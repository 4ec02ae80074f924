/**
 * A model call from the agent's container may carry an image or a document by URL, which the provider then fetches:
 * a way around AGENT_EGRESS_HOSTS (the container reaches nothing else, but the provider would reach the URL for it,
 * query and all). Both model proxies put a short text in place of such a block, wherever it sits (a message, a tool
 * result); inline data (base64, a data: URL) stays.
 */
const NOTE = "[a file given by URL was removed: the agent's model calls do not fetch URLs]";

export function withoutUrlSources(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUrlSources);
  if (value === null || typeof value !== "object") return value;
  const block = value as Record<string, unknown>;
  if (isUrlSourced(block)) return block.type === "input_image" || block.type === "input_file" ? inputText() : text();
  const cleaned: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(block)) cleaned[key] = withoutUrlSources(inner);
  return cleaned;
}

function isUrlSourced(block: Record<string, unknown>): boolean {
  const source = block.source as { type?: unknown } | undefined;
  if ((block.type === "image" || block.type === "document") && source?.type === "url") return true;
  if (block.type === "input_image" && typeof block.image_url === "string") return !block.image_url.startsWith("data:");
  if (block.type === "input_file" && typeof block.file_url === "string") return true;
  return false;
}

const text = () => ({ type: "text", text: NOTE });
const inputText = () => ({ type: "input_text", text: NOTE });
