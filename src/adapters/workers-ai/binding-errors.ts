import type { ErrorClassification } from "../../protocol/events.ts";

/**
 * What a binding error stands for, from its message: the binding throws plain Errors such as "3040: Capacity
 * temporarily exceeded" or "4006: you have used up your daily free allocation", whose codes are Workers AI's
 * (developers.cloudflare.com/workers-ai/platform/errors/). Classified as the HTTP status each would have on Workers
 * AI's REST API is (503, 429, 504, 401, 400), so that retries and fallbacks treat them as any provider's; anything
 * else is a broken transport, as a 500 would be.
 */
export function classifyBindingError(message: string): ErrorClassification {
  if (/capacity|overloaded|\b3040\b/i.test(message)) return "overloaded";
  if (/rate limit|too many requests|allocation|neurons|\b3036\b|\b4006\b/i.test(message)) return "quota";
  if (/timed? ?out|\b3007\b/i.test(message)) return "timeout";
  if (/auth|\b10000\b/i.test(message)) return "auth";
  if (/invalid|bad input|not found|no such model|unknown model|\b5006\b|\b8001\b/i.test(message)) {
    return "invalid_request";
  }
  return "transport";
}
