import { errorEventOf } from "../../adapters/errors.ts";
import type { AgentEvent } from "../../protocol/events.ts";
import type { Tally } from "../tally.ts";

/** Feeds an unwatched turn's events (a guest's, a helper's) to its tally until its end; a throw becomes its error. */
export async function drain(events: AsyncGenerator<AgentEvent>, tally: Tally, label: string): Promise<void> {
  try {
    for await (const event of events) {
      tally.apply(event);
      if (tally.finished) return;
    }
  } catch (thrown) {
    tally.error = errorEventOf(thrown, label);
  }
}
