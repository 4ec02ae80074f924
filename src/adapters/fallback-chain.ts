import type { ErrorClassification } from "../protocol/events.ts";
import { type ProviderError, providerErrorFrom } from "./errors.ts";
import type { ModelAdapter, ModelRequest, ModelResponse, ModelStreamPart } from "./types.ts";

/** Failures another provider may well not have; auth and invalid-request errors would fail there too, or should. */
const FALLS_BACK: ReadonlySet<ErrorClassification> = new Set(["overloaded", "quota", "transport", "timeout"]);

/** One model in a chain: the adapter for its provider and the model name to ask it for. */
export interface ChainLink {
  provider: string;
  model: string;
  adapter: ModelAdapter;
  /** Taken only when the model before it is not served any more (the provider's default after a retired model). */
  onlyWhenGone?: boolean;
}

/** Told when the chain moves on: the link that failed, why, and the one that answers from now on. */
export type FallbackListener = (move: { from: ChainLink; to: ChainLink; error: ProviderError }) => Promise<void>;

function fallsBack(error: ProviderError, next: ChainLink): boolean {
  if (error.modelGone) return true;
  return !next.onlyWhenGone && FALLS_BACK.has(error.classification);
}

/**
 * A model adapter over a chain of models: every call goes to the current link (with that link's model, whatever the
 * request names), and a call that fails with an error another provider may not have (after the adapter's own
 * retries) is made again on the next link, which answers the rest of the turn. One chain per turn: it remembers
 * where it is. A streamed call falls over only while it has streamed nothing, so no answer is shown twice. Every
 * response names the link that made it (`answeredBy`), so usage is priced and recorded under the model that answered.
 */
export class FallbackChain implements ModelAdapter {
  readonly kind = "model";
  private index = 0;

  constructor(
    private readonly links: readonly [ChainLink, ...ChainLink[]],
    private readonly onFallback: FallbackListener,
  ) {}

  /** The link that answers now. */
  get current(): ChainLink {
    return this.links[this.index] ?? this.links[0];
  }

  get label(): string {
    return this.current.adapter.label;
  }

  async generate(request: ModelRequest): Promise<ModelResponse> {
    for (;;) {
      const link = this.current;
      try {
        const response = await link.adapter.generate({ ...request, model: link.model });
        return { ...response, answeredBy: { provider: link.provider, model: link.model } };
      } catch (error) {
        await this.moveOn(link, error, request.signal);
      }
    }
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    for (;;) {
      const link = this.current;
      let streamed = false;
      try {
        for await (const part of link.adapter.stream({ ...request, model: link.model })) {
          if (part.type === "text_delta") {
            streamed = true;
            yield part;
          } else {
            yield {
              type: "response",
              response: { ...part.response, answeredBy: { provider: link.provider, model: link.model } },
            };
          }
        }
        return;
      } catch (error) {
        if (streamed) throw error;
        await this.moveOn(link, error, request.signal);
      }
    }
  }

  /** Moves to the next link, or rethrows when the error does not fall back or the chain is at its end. */
  private async moveOn(link: ChainLink, thrown: unknown, signal: AbortSignal | undefined): Promise<void> {
    const error = providerErrorFrom(thrown, link.adapter.label);
    const next = this.links[this.index + 1];
    if (!next || !fallsBack(error, next) || signal?.aborted) throw error;
    this.index++;
    await this.onFallback({ from: link, to: next, error });
  }
}
