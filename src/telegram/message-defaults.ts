import type { Transformer } from "./bot-api.ts";

/** Methods that send or edit a message's text, where a link would otherwise unfold into a preview. */
const TEXT_METHODS = new Set(["sendMessage", "editMessageText"]);

/**
 * An API transformer (bot-api.ts) for what every message of this bot has unless a call says otherwise: no link previews
 * (an answer full of links would otherwise grow a card under it).
 */
export function messageDefaultsTransformer(): Transformer {
  return (previous, method, payload, signal) => {
    if (!TEXT_METHODS.has(method) || "link_preview_options" in payload) return previous(method, payload, signal);
    return previous(method, { ...payload, link_preview_options: { is_disabled: true } }, signal);
  };
}
