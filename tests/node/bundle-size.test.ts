import { describe, expect, it } from "vitest";
import { bundleSize, WORKER_GZIP_CEILING_KIB } from "../../bench/size.ts";

describe("the Worker's upload", () => {
  // The ceiling that keeps the bundle from growing unnoticed (bench/size.ts); the bench reports the 250 KiB target.
  it(`stays within ${WORKER_GZIP_CEILING_KIB} KiB gzip, as wrangler deploy --dry-run measures it`, async () => {
    const size = await bundleSize();
    expect(size.gzipKiB).toBeGreaterThan(50);
    expect(size.gzipKiB).toBeLessThanOrEqual(WORKER_GZIP_CEILING_KIB);
  }, 120_000);
});
