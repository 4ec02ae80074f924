import { countOutboundFetch } from "./invocations.ts";

// Imported first by the counting entry, so that the global `fetch` is replaced before any of the bot's modules run.
countOutboundFetch();
