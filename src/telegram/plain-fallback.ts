import type { Transformer } from "./bot-api.ts";

/** Where a formatted call carries the text to send instead when Telegram cannot parse it (never sent itself). */
const PLAIN_FALLBACK = Symbol("plain fallback");

/**
 * Options for a formatted text or caption, carrying `plain` to send instead if Telegram cannot parse the formatting.
 * The fallback rides on a symbol key, which JSON (and so Telegram) never sees.
 */
export function withPlainFallback<Options extends object>(options: Options, plain: string): Options {
  return Object.assign({}, options, { [PLAIN_FALLBACK]: plain });
}

/**
 * A grammY API transformer: a call whose formatted text Telegram refuses to parse ("can't parse entities") is made
 * once more as plain text: its fallback (the Markdown it came from) without a parse mode, so an answer is never lost
 * to a formatting mistake. Installed outside the retry transformer, so the plain call is retried like any other.
 */
export function plainFallbackTransformer(): Transformer {
  return async (previous, method, payload, signal) => {
    const result = await previous(method, payload, signal);
    if (result.ok || result.error_code !== 400 || !/can't parse entities/i.test(result.description)) return result;
    const plain: unknown = Reflect.get(payload, PLAIN_FALLBACK);
    if (typeof plain !== "string") return result;
    const again = { ...payload };
    Reflect.deleteProperty(again, "parse_mode");
    Reflect.set(again, "text" in again ? "text" : "caption", plain);
    return previous(method, again, signal);
  };
}
