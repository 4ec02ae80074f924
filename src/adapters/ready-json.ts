import type { ModelTool } from "../protocol/run-payload.ts";

/**
 * Members of a request body whose JSON is made already, by name: added to the body's JSON as they are. A request's
 * tools are the same JSON turn after turn; serializing their schemas again for every call was a fortieth of a plain
 * turn's CPU.
 */
export type ReadyJson = Readonly<Record<string, string>>;

/** `JSON.stringify(body)` with the ready members added (the body has none of their names). */
export function jsonWith(body: object, ready: ReadyJson | undefined): string {
  const json = JSON.stringify(body);
  const members = Object.entries(ready ?? {}).map(([name, value]) => `${JSON.stringify(name)}:${value}`);
  if (members.length === 0) return json;
  return json === "{}" ? `{${members.join(",")}}` : `${json.slice(0, -1)},${members.join(",")}}`;
}

/**
 * A list of tools as JSON in one provider's shape, each tool's made once: the registry hands out one `ModelTool` per
 * tool for the isolate's life (see `ToolRegistry.modelTool`), so it is the key.
 */
export function toolListJson(shape: (tool: ModelTool) => object): (tools: readonly ModelTool[]) => string {
  const made = new WeakMap<ModelTool, string>();
  return (tools) => {
    const parts = tools.map((tool) => {
      let json = made.get(tool);
      if (json === undefined) {
        json = JSON.stringify(shape(tool));
        made.set(tool, json);
      }
      return json;
    });
    return `[${parts.join(",")}]`;
  };
}
