/**
 * The layers of src/, checked by `npm run lint` (dependency-cruiser). Dependencies go one way:
 *
 *   worker.ts · http · console                      the edges
 *     → durable                                     the chat object, the container class
 *       → commands                                  what a command answers
 *         → turn                                    running one turn
 *           → reply · adapters · tools · tasks · media · mcp · compaction · access · store · skills · helpers · memory · widgets
 *             → config · db · telegram · lib · env.ts
 *               → protocol                         wire types shared with container/ (imports nothing of ours)
 *
 * Type-only imports count: a cycle through a type is still a cycle. Provider code (adapters) knows nothing of
 * Telegram; Telegram-facing code (reply) knows nothing of providers. The container's runner imports only protocol.
 */
const EDGES = "^src/(worker\\.ts|http/|console/)";
const ABOVE_DURABLE = EDGES;
const ABOVE_COMMANDS = `${EDGES}|^src/durable/`;
const ABOVE_TURN = `${ABOVE_COMMANDS}|^src/commands/`;
const ABOVE_PARTS = `${ABOVE_TURN}|^src/turn/`;
const PARTS =
  "^src/(reply|adapters|tools|tasks|media|mcp|compaction|budget|access|store|skills|helpers|memory|widgets)/";
const ABOVE_BASE = `${ABOVE_PARTS}|${PARTS}`;
const BASE = "^src/(config|db|telegram|lib)/|^src/env\\.ts$";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      comment: "No import cycles, type-only imports included.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "protocol-imports-nothing-of-ours",
      comment: "protocol/ is shared with the container's runner: it imports only protocol/ (and packages).",
      severity: "error",
      from: { path: "^src/protocol/" },
      to: { path: "^src/", pathNot: "^src/protocol/" },
    },
    {
      name: "container-imports-only-protocol",
      comment: "The container's runner is built from container/ and src/protocol/ alone (see container/Dockerfile).",
      severity: "error",
      from: { path: "^container/", pathNot: "^container/test/" },
      to: { path: "^src/", pathNot: "^src/protocol/" },
    },
    {
      name: "base-stays-below",
      comment: "config, db, telegram and lib sit under everything but protocol.",
      severity: "error",
      from: { path: BASE },
      to: { path: ABOVE_BASE },
    },
    {
      name: "parts-stay-below-the-turn",
      comment:
        "reply, adapters, tools, tasks, media, mcp, compaction, access, store, skills and helpers never reach up into a turn.",
      severity: "error",
      from: { path: PARTS },
      to: { path: ABOVE_PARTS },
    },
    {
      name: "turn-stays-below-commands",
      severity: "error",
      from: { path: "^src/turn/" },
      to: { path: ABOVE_TURN },
    },
    {
      name: "commands-stay-below-durable",
      severity: "error",
      from: { path: "^src/commands/" },
      to: { path: ABOVE_COMMANDS },
    },
    {
      name: "durable-stays-below-the-edges",
      comment: "The objects never import a route: the container's outbound wiring lives in worker.ts.",
      severity: "error",
      from: { path: "^src/durable/" },
      to: { path: ABOVE_DURABLE },
    },
    {
      name: "adapters-know-no-telegram",
      comment: "Provider code knows nothing of Telegram.",
      severity: "error",
      from: { path: "^src/adapters/" },
      to: { path: "^src/(telegram|reply)/" },
    },
    {
      name: "reply-knows-no-providers",
      comment: "Showing a turn in Telegram knows nothing of providers: it meets them only through AgentEvent.",
      severity: "error",
      from: { path: "^src/reply/" },
      to: { path: "^src/adapters/" },
    },
    {
      name: "store-is-plain-state",
      comment: "The chat object's stores hold values; they do not call out (no Telegram client, no model, no D1).",
      severity: "error",
      from: { path: "^src/store/" },
      to: { path: "^src/(telegram/client|adapters|tools|mcp|media|reply|compaction|access|tasks)" },
    },
    {
      name: "no-orphans",
      comment: "A module nothing imports is dead (entry points and declarations excepted).",
      severity: "error",
      from: {
        orphan: true,
        pathNot: ["\\.d\\.ts$", "^src/worker\\.ts$", "^src/db/chat-migrations/"],
      },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|dist|\\.wrangler)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js"],
    },
  },
};
