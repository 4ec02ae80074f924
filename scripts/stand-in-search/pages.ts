/**
 * What the local stand-in search knows: a few pages kept in this file (about the Bot API features this bot uses, and
 * one about the stand-in itself), found by their words and served as HTML. Every title ends in "(stand-in search)" and
 * every page ends by saying that it is not the web. Dates are set relative to now, so that "this week" finds the
 * changelog; each page says so. Plain, erasable TypeScript: Node runs it with type stripping.
 */

/** What every result's title ends with, so that no one mistakes these results for the web. */
const STAND_IN_SUFFIX = " (stand-in search)";

const DAY_MS = 86_400_000;

interface Page {
  slug: string;
  title: string;
  /** The snippet a result shows. */
  summary: string;
  /** Words the page is found by, beyond its title and summary. */
  keywords: string;
  /** Days before now the page says it was published or last changed; undefined: undated. */
  ageDays: number | undefined;
  /** The page's sections: a heading and its paragraphs or list items (a leading "- " makes an item). */
  sections: { heading: string; lines: string[] }[];
}

const HOW_TO_REAL_SEARCH =
  "For real results put SEARXNG_URL=… (your SearXNG instance, its JSON format enabled), BRAVE_SEARCH_API_KEY=… or " +
  "TAVILY_API_KEY=… in .dev.vars and restart npm run dev (WEB_SEARCH=off there turns web search off).";

const PAGES: readonly Page[] = [
  {
    slug: "bot-api-changelog",
    title: "Bot API changelog: the latest releases",
    summary:
      "Bot API 10.3 adds a stop control to drafts (can_stop, keep_on_stop, stopped_message_generation); 10.2 adds " +
      "blocks and media to rich messages; 10.1 brings rich messages; 10.0 brings guest mode.",
    keywords: "telegram bot api changelog news release releases update updates new latest week month",
    ageDays: 2,
    sections: [
      {
        heading: "Bot API 10.3",
        lines: [
          "- can_stop and keep_on_stop on sendMessageDraft and sendRichMessageDraft: a draft can show Telegram's stop control.",
          "- Pressing it sends the bot a stopped_message_generation update with the chat and the draft_id.",
        ],
      },
      {
        heading: "Bot API 10.2",
        lines: ["- InputRichMessage takes blocks and media besides html or markdown."],
      },
      {
        heading: "Bot API 10.1",
        lines: [
          "- Rich messages: sendRichMessage and sendRichMessageDraft with an InputRichMessage (html or markdown), and editMessageText with rich_message.",
          "- Telegram's Markdown is GitHub-flavoured: headings, tables, task lists, footnotes, math and details.",
        ],
      },
      {
        heading: "Bot API 10.0",
        lines: [
          "- Guest mode: a bot named in a chat it is not in gets a guest_message update with a guest_query_id, and answers it with answerGuestQuery.",
          "- A draft with empty text shows “Thinking…”.",
        ],
      },
      {
        heading: "The real changelog",
        lines: ["https://core.telegram.org/bots/api-changelog"],
      },
    ],
  },
  {
    slug: "rich-messages",
    title: "Rich messages: tables, task lists and math in bot answers",
    summary:
      "sendRichMessage takes GitHub-flavoured Markdown or HTML: up to 32,768 characters, 500 blocks and 20 table " +
      "columns; drafts stream them to private chats.",
    keywords: "telegram bot api rich messages markdown html tables table sendrichmessage draft drafts streaming",
    ageDays: 9,
    sections: [
      {
        heading: "Limits",
        lines: ["- 32,768 characters, 500 blocks, 16 levels of nesting, 20 table columns, 50 media."],
      },
      {
        heading: "Drafts",
        lines: [
          "- sendRichMessageDraft shows an answer while it is written, in private chats; groups stream by editing one message.",
          "- A <tg-thinking> block is allowed only in drafts.",
        ],
      },
    ],
  },
  {
    slug: "guest-mode",
    title: "Guest mode: summoning a bot in a chat it is not in",
    summary:
      "Since Bot API 10.0 a bot named in any chat gets a guest_message update and answers it once with " +
      "answerGuestQuery and an InlineQueryResult.",
    keywords: "telegram bot api guest mode guest_message answerguestquery summon group chat",
    ageDays: 20,
    sections: [
      {
        heading: "How it works",
        lines: [
          "- The update carries guest_query_id, the chat and who wrote the message.",
          "- The bot answers with answerGuestQuery; it sees nothing else of that chat.",
        ],
      },
    ],
  },
];

/** The page about the stand-in itself: the last result of every search, so that each list says what it is. */
const ABOUT: Page = {
  slug: "about",
  title: "About these results: a local stand-in, not the web",
  summary:
    "npm run dev started this stand-in because no search backend is configured: it knows only a few pages, kept in " +
    "scripts/stand-in-search/pages.ts, and serves them on this machine.",
  keywords: "",
  ageDays: undefined,
  sections: [{ heading: "Real search", lines: [HOW_TO_REAL_SEARCH] }],
};

export interface PageHit {
  slug: string;
  title: string;
  summary: string;
  /** ISO timestamp, or null when the page is undated (as SearXNG gives `publishedDate`). */
  publishedDate: string | null;
  /** How many of the query's words the page holds, those in its title counted twice. */
  score: number;
}

const IGNORED = new Set(
  "a an and are at be by did do for from how i in is it me my of on or the this to was what".split(" "),
);

/** The pages holding any of the query's words, most words first; the page about the stand-in always last. */
export function findPages(query: string, now: number): PageHit[] {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])].filter((word) => !IGNORED.has(word));
  const wordsOf = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu));
  // A word in the title counts twice.
  const scored = PAGES.map((page) => {
    const title = wordsOf(page.title);
    const text = wordsOf(`${page.title} ${page.summary} ${page.keywords}`);
    return {
      page,
      score: words.filter((word) => text.has(word)).length + words.filter((word) => title.has(word)).length,
    };
  })
    .filter((entry) => entry.score > 0)
    .sort((left, right) => right.score - left.score);
  return [...scored, { page: ABOUT, score: 0 }].map(({ page, score }) => ({
    slug: page.slug,
    title: `${page.title}${STAND_IN_SUFFIX}`,
    summary: page.summary,
    publishedDate: publishedAt(page, now),
    score,
  }));
}

/** A page as HTML, titled as a stand-in and ending with a notice that it is not the web; undefined for a slug the stand-in does not have. */
export function pageHtml(slug: string, now: number): string | undefined {
  const page = slug === ABOUT.slug ? ABOUT : PAGES.find((candidate) => candidate.slug === slug);
  if (!page) return undefined;
  const published = publishedAt(page, now);
  const sections = page.sections.map((section) => {
    const items = section.lines
      .filter((line) => line.startsWith("- "))
      .map((line) => `<li>${escapeHtml(line.slice(2))}</li>`);
    const paragraphs = section.lines
      .filter((line) => !line.startsWith("- "))
      .map(
        (line) =>
          `<p>${/^https?:\/\//.test(line) ? `<a href="${escapeHtml(line)}">${escapeHtml(line)}</a>` : escapeHtml(line)}</p>`,
      );
    return `<h2>${escapeHtml(section.heading)}</h2>\n${items.length > 0 ? `<ul>${items.join("")}</ul>\n` : ""}${paragraphs.join("\n")}`;
  });
  return [
    "<!doctype html>",
    `<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(page.title + STAND_IN_SUFFIX)}</title></head><body>`,
    `<h1>${escapeHtml(page.title)}</h1>`,
    `<p>${escapeHtml(page.summary)}</p>`,
    ...sections,
    "<hr>",
    `<p><small>A page of the local stand-in search, not of the web: its text is kept in this repository${
      published ? ", and its date is set by the stand-in to a few days ago" : ""
    }. ${escapeHtml(HOW_TO_REAL_SEARCH)}</small></p>`,
    "</body></html>",
  ].join("\n");
}

function publishedAt(page: Page, now: number): string | null {
  return page.ageDays === undefined ? null : new Date(now - page.ageDays * DAY_MS).toISOString();
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[char] ?? char);
}
