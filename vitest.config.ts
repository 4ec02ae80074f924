import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { MCP_TEST_TOKEN } from "./tests/fakes/mcp-server.ts";
import { FAKE_BRAVE_KEY } from "./tests/fakes/search-apis.ts";

/**
 * Three projects in one `vitest run`: the Worker's tests inside workerd (the real runtime, with local D1, KV and
 * Durable Objects), once more the few that hold Workers Free's limits with WORKERS_PLAN=free, and the agent runner's
 * tests in Node. Fake Telegram / OpenAI / Anthropic / runner servers are
 * started once by the global setup on 127.0.0.1 and scripted per test; files run one at a time because they share them.
 */
export default defineConfig({
  test: {
    globalSetup: ["./tests/global-setup.ts"],
    fileParallelism: false,
    // Room for a machine two or three times slower than a quiet one (CI has run at that): hooks start servers and
    // reset fakes, and a polled condition (`expect.poll`) waits for a turn, which a loaded machine can take seconds
    // over. Waits return as soon as what they wait for happens, so a quiet machine is not slowed.
    hookTimeout: 60_000,
    expect: { poll: { timeout: 15_000 } },
    projects: [
      workerProject("worker", {
        include: ["tests/worker/**/*.test.ts", "tests/unit/**/*.test.ts"],
      }),
      // The same Worker deployed on Workers Free: the tests that hold its per-invocation limits run here too.
      workerProject("worker-free", { include: ["tests/worker/subrequest-limits.test.ts"], plan: "free" }),
      {
        extends: true,
        test: {
          name: "node",
          environment: "node",
          include: ["container/test/**/*.test.ts", "tests/node/**/*.test.ts"],
          testTimeout: 60_000,
        },
      },
    ],
  },
});

/**
 * The Worker's tests inside workerd, with the fakes' addresses and the test variables; `plan` sets WORKERS_PLAN (the
 * default, unset, is Paid).
 */
function workerProject(name: string, options: { include: string[]; plan?: "free" | "paid" }) {
  return {
    extends: true,
    plugins: [
      cloudflareTest(async ({ inject }) => ({
        wrangler: { configPath: "./wrangler.toml" },
        // The AI binding needs a Cloudflare account; tests reach Workers AI through its fake (see WORKERS_AI_BASE_URL).
        remoteBindings: false,
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: await readD1Migrations("./migrations"),
            FAKES_URL: inject("fakesUrl"),
            MCP_FAKE_URL: inject("mcpUrl"),
            // The secret a chat's MCP server config names (tests/fakes/mcp-server.ts wants it as a bearer token).
            MCP_TEST_TOKEN: MCP_TEST_TOKEN,
            // A server that hangs costs a turn this long (then its tools are left out).
            MCP_TIMEOUT_SECONDS: "2",
            TELEGRAM_API_BASE_URL: `${inject("fakesUrl")}/telegram`,
            OPENAI_BASE_URL: `${inject("fakesUrl")}/openai/v1`,
            ANTHROPIC_BASE_URL: `${inject("fakesUrl")}/anthropic`,
            // Workers AI's OpenAI-compatible endpoint, played by the fake OpenAI server (the binding path is
            // tested with a fake runner in tests/unit/workers-ai.test.ts).
            WORKERS_AI_BASE_URL: `${inject("fakesUrl")}/openai/v1`,
            WORKERS_AI_API_TOKEN: "test-workers-ai-token",
            AGENT_RUNNER_URL: `${inject("fakesUrl")}/runner`,
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
            BRAVE_SEARCH_BASE_URL: `${inject("fakesUrl")}/search/brave`,
            // Anthropic chats search with Anthropic's own server tool (the fake Anthropic API plays its blocks).
            ANTHROPIC_WEB_SEARCH: "on",
            // The fakes' web pages live on loopback, which web_fetch otherwise refuses.
            WEB_FETCH_PRIVATE_HOSTS: new URL(inject("fakesUrl")).host,
            ...(options.plan === undefined ? {} : { WORKERS_PLAN: options.plan }),
          },
        },
      })),
    ],
    test: {
      name,
      include: options.include,
      setupFiles: ["./tests/worker/setup.ts"],
      testTimeout: 45_000,
    },
  };
}
