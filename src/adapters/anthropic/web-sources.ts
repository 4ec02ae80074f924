import type { CitationsWebSearchResultLocation, TextCitation } from "@anthropic-ai/sdk/resources/messages/messages";

const MAX_SOURCES = 5;

/**
 * The pages a server-searched answer cites. History stays provider-neutral, so the search's own blocks (whose page
 * text only Anthropic can read) are not kept; the answer keeps its sources as a line of Markdown links instead, which
 * the person sees and any provider reads later.
 */
export class WebSources {
  private readonly pages = new Map<string, string>();

  add(citations: readonly TextCitation[] | null | undefined): void {
    for (const citation of citations ?? []) {
      if (!isWebCitation(citation) || this.pages.size >= MAX_SOURCES || this.pages.has(citation.url)) continue;
      if (/^https?:\/\//i.test(citation.url)) this.pages.set(citation.url, citation.title ?? citation.url);
    }
  }

  /** "\n\nSources: [title](url), …", or nothing when no page was cited. */
  line(): string {
    if (this.pages.size === 0) return "";
    const links = [...this.pages].map(
      ([url, title]) => `[${title.replace(/[[\]]/g, "")}](${url.replace(/\)/g, "%29")})`,
    );
    return `\n\nSources: ${links.join(", ")}`;
  }
}

function isWebCitation(citation: TextCitation): citation is CitationsWebSearchResultLocation {
  return citation.type === "web_search_result_location";
}
