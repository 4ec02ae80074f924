import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeViolation } from "../../scripts/bot-api/vocabulary.ts";
import { BOT_SETTINGS } from "../../scripts/deploy/telegram-setup.ts";
import { setupCodeOf } from "../../src/access/setup-code.ts";
import { type Fakes, startFakes } from "../fakes/server.ts";

const run = promisify(execFile);
let fakes: Fakes;

beforeEach(async () => {
  fakes = await startFakes();
});
afterEach(async () => {
  // Whatever the script sent, Telegram would know every method and field of it.
  const violations = fakes.telegram.violations.map(describeViolation);
  await fakes.close();
  expect(violations).toEqual([]);
});

/** `npm run setup:telegram -- <url>` with the given secret, against the fake Bot API; never throws. */
async function setup(secret: string): Promise<{ code: number; output: string }> {
  const env = {
    ...process.env,
    TELEGRAM_BOT_TOKEN: "123456:SETUP-TEST",
    TELEGRAM_WEBHOOK_SECRET: secret,
    TELEGRAM_API_BASE_URL: `${fakes.url}/telegram`,
  };
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ["scripts/setup-telegram.ts", "https://bot.example.workers.dev"],
      { env },
    );
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe("npm run setup:telegram", () => {
  it("refuses a webhook secret shorter than 32 characters before calling Telegram", async () => {
    const short = await setup("abc");
    expect(short.code).toBe(2);
    expect(short.output).toContain("32 to 256 characters");
    expect(short.output).not.toContain("abc");
    expect(fakes.requests).toHaveLength(0);
  });

  it("sets the webhook with a long enough secret and never prints it or the token", async () => {
    const secret = "s".repeat(40);
    const done = await setup(secret);
    expect(done.code).toBe(0);
    const setWebhook = fakes.requests.find((request) => request.method === "setWebhook");
    expect(setWebhook?.body).toMatchObject({
      url: "https://bot.example.workers.dev/telegram/webhook",
      secret_token: secret,
      // Messages, button presses (Stop, /model), presses of a rich draft's stop control (Bot API 10.3) and guest
      // queries (Bot API 10.0): the last two arrive only when asked for.
      allowed_updates: ["message", "callback_query", "stopped_message_generation", "guest_message", "widget_query"],
    });
    expect(done.output).not.toContain(secret);
    expect(done.output).not.toContain("SETUP-TEST");
    // Bot API 10.5: the bot's settings are set by the script (no @BotFather switches), and getMe reports them.
    const settings = fakes.requests.find((request) => request.method === "setMySettings");
    expect(settings?.body).toEqual(BOT_SETTINGS);
    expect(done.output).toContain("Bot settings: joins groups, privacy mode on");
    expect(done.output).toContain("Guest mode: on");
  });

  it("prints the owner's setup code, derived from the secret the Worker checks it against", async () => {
    const secret = "t".repeat(40);
    const done = await setup(secret);
    expect(done.code).toBe(0);
    const code = await setupCodeOf(secret);
    expect(code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect(done.output).toContain(`Owner setup code: ${code}`);
    expect(await setupCodeOf("u".repeat(40))).not.toBe(code);
  });
});
