import { defineConfig } from "vitest/config";

/**
 * `npm run test:containers` only (scripts/test-containers.ts builds the images first): the agent image under Docker,
 * driven by the Worker under `wrangler dev`. Not part of `npm test`, which needs no Docker.
 */
export default defineConfig({
  test: {
    name: "containers",
    include: ["tests/containers/**/*.test.ts"],
    environment: "node",
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 240_000,
  },
});
