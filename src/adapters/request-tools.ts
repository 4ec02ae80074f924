import type { ModelTool } from "../protocol/run-payload.ts";
import type { FunctionTool } from "./types.ts";

/** The bot's tools as a model call's function tools (each definition kept as it is, see FunctionTool). */
export function functionTools(definitions: readonly ModelTool[]): FunctionTool[] {
  return definitions.map((definition) => ({ kind: "function", definition }));
}
