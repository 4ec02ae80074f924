import { runToolLoop } from "../../adapters/tool-loop.ts";
import type { ModelAdapter, ModelRequest, ToolExecutor } from "../../adapters/types.ts";
import type { AgentEvent } from "../../protocol/events.ts";
import type { ActiveRun } from "../active-run.ts";
import { cappedTools } from "./capped-tools.ts";
import type { TurnPolicy } from "./turn-policy.ts";

/**
 * Arms the run with the turn's tools, capped and narrowed by its policy: the loop and an agent's runner (which calls
 * back through the chat's object) both reach them through the run, and none once it has ended.
 */
export function armTools(run: ActiveRun, policy: TurnPolicy, execute: ToolExecutor): void {
  run.useTools(cappedTools(policy, execute));
}

/**
 * The one tool loop of every kind of turn (chat, scheduled task, guest, helper), over a model adapter: the request as
 * the turn assembled it, its tools through the run, streamed or not and stopped as its policy says (any stop
 * condition ends it before the next call; `prepareCall` changes each call, as vercel/ai's `prepareStep`). The stop
 * conditions watch the events after the consumer has seen each one.
 */
export async function* runEngine(input: {
  policy: TurnPolicy;
  adapter: ModelAdapter;
  request: ModelRequest;
  run: ActiveRun;
  prepareCall?: (request: ModelRequest) => ModelRequest;
}): AsyncGenerator<AgentEvent> {
  const { policy, run } = input;
  const events = runToolLoop({
    adapter: input.adapter,
    request: input.request,
    executeTool: (name, argumentsText) => run.execute(name, argumentsText),
    stream: policy.stream,
    stopBeforeCall: () => {
      for (const condition of policy.stopWhen) {
        const reason = condition.reason();
        if (reason !== undefined) return reason;
      }
      return undefined;
    },
    ...(input.prepareCall ? { prepareCall: input.prepareCall } : {}),
  });
  for await (const event of events) {
    yield event;
    for (const condition of policy.stopWhen) condition.observe?.(event);
  }
}
