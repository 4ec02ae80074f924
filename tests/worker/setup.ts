import { abortAllDurableObjects, applyD1Migrations, reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach } from "vitest";

/** Every test starts from empty storage (D1, KV, Durable Objects) and fakes with no scripts. */
beforeEach(async () => {
  await reset();
  await abortAllDurableObjects();
  await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
  await fetch(`${env.FAKES_URL}/__control/reset`, { method: "POST" });
});
