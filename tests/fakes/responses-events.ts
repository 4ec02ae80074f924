import type { Response as ApiResponse, ResponseStreamEvent, ResponseUsage } from "openai/resources/responses/responses";

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * A Responses API answer streamed as the API does it (`event: <type>` and its JSON with a `sequence_number`, shapes
 * from the `openai` SDK's declarations): one assistant message of `text`, word by word, and `response.completed`
 * with `usage`. Each element is one event, blank line included, for the fakes' `lines` (which add a newline).
 */
export function responsesEvents(text: string, usage: ResponseUsage, model = "gpt-upstream"): string[] {
  const base = {
    id: "resp_fake",
    object: "response",
    created_at: 1_795_000_000,
    access_programs: null,
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    model,
    output_text: "",
    parallel_tool_calls: true,
    temperature: 1,
    tool_choice: "auto",
    tools: [],
    top_p: 1,
  } satisfies Omit<ApiResponse, "output" | "status">;
  const item = {
    id: "msg_fake",
    type: "message" as const,
    role: "assistant" as const,
    content: [{ type: "output_text" as const, text, annotations: [], logprobs: [] }],
  };
  const events: Array<DistributiveOmit<ResponseStreamEvent, "sequence_number">> = [
    { type: "response.created", response: { ...base, status: "in_progress", output: [] } },
    { type: "response.output_item.added", output_index: 0, item: { ...item, status: "in_progress", content: [] } },
    ...text.split(/(?<= )/).map((delta) => ({
      type: "response.output_text.delta" as const,
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      delta,
      logprobs: [],
    })),
    { type: "response.output_item.done", output_index: 0, item: { ...item, status: "completed" } },
    {
      type: "response.completed",
      response: { ...base, status: "completed", output: [{ ...item, status: "completed" }], output_text: text, usage },
    },
  ];
  return events.map(
    (event, index) => `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: index })}\n`,
  );
}
