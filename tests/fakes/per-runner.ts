import { cloudflarePool, cloudflareTest } from "@cloudflare/vitest-plugin";
import type { Plugin } from "vitest/config";
import { type FakeMcp, startFakeMcp } from "./mcp-server.ts";
import { type Fakes, startFakes } from "./server.ts";

/** Where a workerd runner finds its own fakes. */
export interface RunnerFakes {
  /** The fake Telegram, OpenAI, Anthropic, runner, web and search APIs (tests/fakes/server.ts). */
  fakesUrl: string;
  /** The fake MCP server (tests/fakes/mcp-server.ts). */
  mcpUrl: string;
}

type PoolOptions = Parameters<typeof cloudflarePool>[0];
type WorkerOptions = Exclude<PoolOptions, (...args: never[]) => unknown>;

/**
 * `cloudflareTest()` with fakes of each workerd runner's own: they start with the runner (its Miniflare) and close
 * with it, so that the project's files can run in parallel, one per runner, a test scripting, resetting and reading
 * the fakes of the runtime it runs in and no other. `optionsFor` gives a runner's options from its fakes' addresses.
 */
export function cloudflareTestWithFakes(optionsFor: (fakes: RunnerFakes) => Promise<WorkerOptions>): Plugin[] {
  const placeholder = () => {
    throw new Error("the workerd runners' options come from fakesPerRunner (tests/fakes/per-runner.ts)");
  };
  return [cloudflareTest(placeholder), fakesPerRunner(optionsFor)];
}

/** Replaces the pool `cloudflareTest()` set with the same pool, given each runner's options and fakes. */
function fakesPerRunner(optionsFor: (fakes: RunnerFakes) => Promise<WorkerOptions>): Plugin {
  return {
    name: "fakes-per-runner",
    enforce: "post",
    configureVitest({ project }) {
      project.config.poolRunner = {
        name: "cloudflare-pool",
        createPoolWorker(options) {
          let started: { fakes: Fakes; mcp: FakeMcp } | undefined;
          const worker = cloudflarePool(() => {
            if (!started) throw new Error("a workerd runner started before its fakes");
            return optionsFor({ fakesUrl: started.fakes.url, mcpUrl: started.mcp.url });
          }).createPoolWorker(options);
          return {
            name: worker.name,
            on: (event, callback) => worker.on(event, callback),
            off: (event, callback) => worker.off(event, callback),
            send: (message) => worker.send(message),
            deserialize: (data) => worker.deserialize(data),
            async start() {
              const [fakes, mcp] = await Promise.all([startFakes(), startFakeMcp()]);
              started = { fakes, mcp };
              await worker.start();
            },
            async stop() {
              try {
                await worker.stop();
              } finally {
                await Promise.all([started?.fakes.close(), started?.mcp.close()]);
                started = undefined;
              }
            },
          };
        },
      };
    },
  };
}
