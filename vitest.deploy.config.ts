import { defineConfig } from "vitest/config";

/**
 * `npm run test:deploy`: `npm run deploy` from a fresh clone against the fake Cloudflare API and the fake Telegram
 * (tests/deploy/). Slow (wrangler bundles the Worker on every deploy), so it runs on its own; CI runs it after
 * `npm test`.
 */
export default defineConfig({
  test: {
    include: ["tests/deploy/**/*.test.ts"],
    environment: "node",
    testTimeout: 240_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
