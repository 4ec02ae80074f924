/**
 * Stands in for `ajv` and `ajv-formats` in the Worker bundle (wrangler.toml `[alias]`). The MCP SDK's client imports
 * ajv for its default JSON Schema validator, which generates code with `new Function` (refused by Workers); the bot
 * gives every client the SDK's @cfworker/json-schema validator instead, so ajv never runs. Saves about 43 KiB gzip.
 */
export default function ajvIsNotBundled(): never {
  throw new Error("ajv is not bundled in the Worker: pass the SDK's CfWorkerJsonSchemaValidator");
}
