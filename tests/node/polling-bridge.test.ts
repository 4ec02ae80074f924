import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeViolation } from "../../scripts/bot-api/vocabulary.ts";
import { BridgeStopped, runPollingBridge } from "../../scripts/polling-bridge.ts";
import { type Fakes, type RecordedRequest, type ScriptedResponse, type Service, startFakes } from "../fakes/server.ts";

let fakes: Fakes;
let stop: AbortController;

beforeEach(async () => {
  fakes = await startFakes();
  stop = new AbortController();
});
afterEach(async () => {
  // Whatever the script sent, Telegram would know every method and field of it.
  const violations = fakes.telegram.violations.map(describeViolation);
  stop.abort();
  await fakes.close();
  expect(violations).toEqual([]);
});

const script = (service: Service, ...responses: ScriptedResponse[]) =>
  fetch(`${fakes.url}/__control/script`, { method: "POST", body: JSON.stringify({ service, responses }) });
const update = (id: number) => ({
  update_id: id,
  message: { message_id: id, date: 1, chat: { id: 1, type: "private" }, text: `m${id}` },
});

/** Resolves once the fakes have seen requests matching `done`. */
function until(done: (requests: RecordedRequest[]) => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (done(fakes.requests)) return resolve();
    fakes.onRequest = () => {
      // The record is pushed before the hook runs.
      if (done(fakes.requests)) resolve();
    };
  });
}

function bridge(log: string[] = []) {
  return runPollingBridge({
    apiBaseUrl: `${fakes.url}/telegram`,
    botToken: "123:abc",
    webhookUrl: `${fakes.url}/webhook`,
    webhookSecret: "s3cret",
    signal: stop.signal,
    pollSeconds: 1,
    retryDelayMs: 20,
    log: (line) => log.push(line),
  });
}

describe("the polling bridge", () => {
  it("forwards each update once, in order, retries a failed forward, and advances the offset", async () => {
    await script(
      "telegram",
      { method: "getUpdates", body: { ok: true, result: [update(1), update(2)] } },
      { method: "getUpdates", body: { ok: true, result: [update(3)] } },
    );
    await script("webhook", { status: 200, body: {} }, { status: 500, body: {} }, { destroy: true });
    const running = bridge();
    const webhookIds = () =>
      fakes.requests
        .filter((request) => request.service === "webhook")
        .map((request) => (request.body as { update_id: number }).update_id);
    await until(
      () => webhookIds().includes(3) && fakes.requests.filter((request) => request.method === "getUpdates").length >= 3,
    );
    stop.abort();
    await running;

    // Update 2 failed twice (a 500, then a dropped connection) and was sent again until taken; 1 and 3 once each.
    expect(webhookIds()).toEqual([1, 2, 2, 2, 3]);
    const hooks = fakes.requests.filter((request) => request.service === "webhook");
    expect(hooks.every((request) => request.headers["content-type"] === "application/json")).toBe(true);
    const offsets = fakes.requests
      .filter((request) => request.method === "getUpdates")
      .map((request) => (request.body as { offset?: number }).offset);
    expect(offsets.slice(0, 3)).toEqual([undefined, 3, 4]);
  });

  it("stops with a clear message when the bot has a webhook set", async () => {
    await script("telegram", {
      method: "getUpdates",
      status: 409,
      body: {
        ok: false,
        error_code: 409,
        description: "Conflict: can't use getUpdates method while webhook is active",
      },
    });
    await expect(bridge()).rejects.toThrow(BridgeStopped);
  });

  it("skips an update the webhook refuses as bad, without looping", async () => {
    await script("telegram", { method: "getUpdates", body: { ok: true, result: [update(7), update(8)] } });
    await script("webhook", { status: 400, body: { error: "invalid_update" } });
    const log: string[] = [];
    const running = bridge(log);
    await expect.poll(() => log).toContain("update 8 forwarded");
    stop.abort();
    await running;
    expect(log.some((line) => line.includes("update 7 refused"))).toBe(true);
    expect(fakes.requests.filter((request) => request.service === "webhook")).toHaveLength(2);
  });
});
