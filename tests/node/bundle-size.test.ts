import { describe, expect, it } from "vitest";
import { bundleSize, MAX_WORKER_GZIP_KIB } from "../../bench/size.ts";

describe("the Worker's upload", () => {
  it(`is at most ${MAX_WORKER_GZIP_KIB} KiB gzip, as wrangler deploy --dry-run measures it`, async () => {
    const size = await bundleSize();
    expect(size.gzipKiB).toBeGreaterThan(50);
    expect(size.gzipKiB).toBeLessThanOrEqual(MAX_WORKER_GZIP_KIB);
  }, 120_000);
});
