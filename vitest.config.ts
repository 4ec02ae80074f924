import { readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { MCP_TEST_TOKEN } from "./tests/fakes/mcp-server.ts";
import { cloudflareTestWithFakes } from "./tests/fakes/per-runner.ts";
import { FAKE_BRAVE_KEY } from "./tests/fakes/search-apis.ts";
import { runtimeImportsRefused, workerdUnitTests } from "./tests/projects.ts";

/** The unit tests that need the Workers runtime (tests/projects.ts's rule: by what they import). */
const workerdUnits = workerdUnitTests(import.meta.dirname);
/** Files run in parallel, one per core, in every project. */
const WORKERS = "100%";

/**
 * Three projects in one `vitest run`, their files in parallel. "worker": the Worker's tests and the unit tests that
 * need the runtime, inside workerd (the real runtime, with local D1, KV and Durable Objects), against fake Telegram /
 * OpenAI / Anthropic / runner / MCP servers on 127.0.0.1 that the tests script and reset. Each workerd runner has its
 * own fakes (tests/fakes/per-runner.ts) and runs its files one after another (tests/worker/setup.ts resets storage,
 * fakes and the isolate's caches before each test). "unit": the other unit tests, plain logic, in Node. "node": the
 * agent runner's tests and the scripts', in Node. "worker-free" runs the tests that hold Workers Free's per-invocation
 * limits once more, with WORKERS_PLAN=free.
 */
export default defineConfig({
  test: {
    // Room for a machine two or three times slower than a quiet one (CI has run at that): hooks start servers and
    // reset fakes, and a polled condition (`expect.poll`) waits for a turn, which a loaded machine can take seconds
    // over. Waits return as soon as what they wait for happens, so a quiet machine is not slowed.
    hookTimeout: 60_000,
    expect: { poll: { timeout: 15_000 } },
    projects: [
      workerProject({ name: "worker", include: ["tests/worker/**/*.test.ts", ...workerdUnits] }),
      // The same Worker deployed on Workers Free: the tests that hold its per-invocation limits run here too.
      workerProject({ name: "worker-free", include: ["tests/worker/subrequest-limits.test.ts"], plan: "free" }),
      {
        extends: true,
        plugins: [runtimeImportsRefused()],
        test: {
          name: "unit",
          environment: "node",
          include: ["tests/unit/**/*.test.ts"],
          exclude: workerdUnits,
          setupFiles: ["./tests/unit/node-setup.ts"],
          maxWorkers: WORKERS,
        },
      },
      {
        extends: true,
        test: {
          name: "node",
          environment: "node",
          include: ["container/test/**/*.test.ts", "tests/node/**/*.test.ts"],
          testTimeout: 60_000,
          maxWorkers: WORKERS,
        },
      },
    ],
  },
});

/**
 * The Worker's tests inside workerd, with the fakes' addresses and the test variables; `plan` sets WORKERS_PLAN (unset,
 * the default, is Paid).
 */
function workerProject(options: { name: string; include: string[]; plan?: "free" | "paid" }) {
  return {
    extends: true,
    plugins: [
      cloudflareTestWithFakes(async ({ fakesUrl, mcpUrl }) => ({
        wrangler: { configPath: "./wrangler.toml" },
        // The AI binding needs a Cloudflare account; tests reach Workers AI through its fake (see WORKERS_AI_BASE_URL).
        remoteBindings: false,
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: await readD1Migrations("./migrations"),
            FAKES_URL: fakesUrl,
            MCP_FAKE_URL: mcpUrl,
            // The secret a chat's MCP server config names (tests/fakes/mcp-server.ts wants it as a bearer token).
            MCP_TEST_TOKEN: MCP_TEST_TOKEN,
            // A server that hangs costs a turn this long (then its tools are left out).
            MCP_TIMEOUT_SECONDS: "2",
            TELEGRAM_API_BASE_URL: `${fakesUrl}/telegram`,
            OPENAI_BASE_URL: `${fakesUrl}/openai/v1`,
            ANTHROPIC_BASE_URL: `${fakesUrl}/anthropic`,
            // Workers AI's OpenAI-compatible endpoint, played by the fake OpenAI server (the binding path is
            // tested with a fake runner in tests/unit/adapters/workers-ai/).
            WORKERS_AI_BASE_URL: `${fakesUrl}/openai/v1`,
            WORKERS_AI_API_TOKEN: "test-workers-ai-token",
            AGENT_RUNNER_URL: `${fakesUrl}/runner`,
            AGENT_TIMEOUT_SECONDS: "2",
            // As with a runner started by hand: tools are called back on this Worker's /agent/tools route.
            AGENT_CALLBACK_URL: "http://127.0.0.1:8787",
            TELEGRAM_BOT_TOKEN: "123456:TEST-TOKEN",
            TELEGRAM_WEBHOOK_SECRET: "test-webhook-secret",
            ALLOWED_CHAT_IDS: "1001,1002,-2001,-2002,-3001",
            ADMIN_USER_IDS: "1001",
            ADMIN_CHAT_IDS: "1001",
            ADMIN_TOKEN: "test-admin-token-0123456789abcdefghij",
            OPENAI_API_KEY: "test-openai-key",
            ANTHROPIC_API_KEY: "test-anthropic-key",
            DEFAULT_PROVIDER: "openai",
            DEFAULT_MODEL: "gpt-test",
            MODEL_CHOICES: "openai:gpt-test, anthropic:claude-sonnet-4-5",
            PROVIDER_MAX_RETRIES: "2",
            BOT_NAME: "Testbot",
            // The tests' model names see images; "text-only" models do not.
            VISION_MODELS: "gpt-test,gpt-4o*,claude-*",
            // generate_image is offered (it is off unless an images model is named).
            IMAGE_MODEL: "gpt-image-test",
            // The HTML path, which most tests were written against; the tests of rich messages turn them on per
            // chat (tests/worker/rich-messages.test.ts), and the end-to-end property test runs both paths.
            RICH_MESSAGES: "off",
            // Faster than deployed, so that streaming tests take a second or two, not ten.
            STREAM_EDIT_INTERVAL_MS: "1000",
            // Small enough that a test reaches it with three fetched pages.
            TOOL_RESULTS_MAX_CHARS: "50000",
            // web_search asks the fake Brave API (tests of Tavily and SearXNG name their backend themselves).
            BRAVE_SEARCH_API_KEY: FAKE_BRAVE_KEY,
            BRAVE_SEARCH_BASE_URL: `${fakesUrl}/search/brave`,
            // Anthropic chats search with Anthropic's own server tool (the fake Anthropic API plays its blocks).
            ANTHROPIC_WEB_SEARCH: "on",
            // The fakes' web pages live on loopback, which web_fetch otherwise refuses.
            WEB_FETCH_PRIVATE_HOSTS: new URL(fakesUrl).host,
            ...(options.plan === undefined ? {} : { WORKERS_PLAN: options.plan }),
          },
        },
      })),
    ],
    test: {
      name: options.name,
      include: options.include,
      setupFiles: ["./tests/worker/setup.ts"],
      testTimeout: 45_000,
      // A runner's files share its workerd (one start, modules loaded once), one after another.
      isolate: false,
      maxWorkers: WORKERS,
    },
  };
}
