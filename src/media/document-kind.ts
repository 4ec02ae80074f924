/** How a model can take a document: natively (PDF), as text (text-like files), or not at all. */
export type DocumentKind = "pdf" | "text" | "other";

const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/x-yaml",
  "application/yaml",
  "application/toml",
  "application/javascript",
  "application/typescript",
  "application/x-sh",
  "application/sql",
  "application/x-ndjson",
  "application/csv",
]);

const TEXT_EXTENSIONS = new Set(
  (
    "txt md markdown csv tsv json jsonl ndjson yaml yml toml ini cfg conf log xml html htm css scss js mjs cjs ts tsx " +
    "jsx py rb go rs java kt swift c h cc cpp hpp cs php sh bash zsh sql r lua pl tex srt vtt env gitignore dockerfile"
  ).split(" "),
);

export function documentKind(mediaType: string, fileName: string): DocumentKind {
  const type = mediaType.toLowerCase();
  const extension = fileName.includes(".") ? fileName.split(".").at(-1)!.toLowerCase() : fileName.toLowerCase();
  if (type === "application/pdf" || extension === "pdf") return "pdf";
  if (type.startsWith("text/") || TEXT_TYPES.has(type) || TEXT_EXTENSIONS.has(extension)) return "text";
  return "other";
}
