import { defineConfig } from "vitest/config";

/**
 * `npm run test:e2e`: the console in a headless Chromium (Debian's `chromium` package, driven by playwright-core)
 * against `wrangler dev`, its upstreams faked. Not part of `npm test`: it needs a browser and starts wrangler.
 */
export default defineConfig({
  test: {
    name: "e2e",
    environment: "node",
    include: ["tests/e2e/**/*.e2e.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
