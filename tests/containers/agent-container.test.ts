import { writeFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bot, startBot } from "../../bench/bot.ts";
import { FakeAnthropic, isMainLoop, messagesText, toolResults } from "../../container/test/fake-anthropic.ts";
import { FakeOpenAI, functionOutputs, type ResponsesBody } from "../../container/test/fake-openai.ts";
import { DEFAULT_MODELS } from "../../src/config/providers.ts";
import { type Fakes, type RecordedRequest, startFakes } from "../fakes/server.ts";
import { ContainerHost, docker } from "./container-host.ts";

/**
 * The agent image for real: `docker run` of the built image, driven by the Worker under `wrangler dev` through its
 * webhook, with the Worker's model proxy (`proxyModelCall`) holding the only key. See README "The agent container,
 * run for real" for why `wrangler dev` itself does not run the container here.
 */

const IMAGE = process.env.AGENT_IMAGE ?? "telegram-edge-agent/runner:dev";
const BOT_TOKEN = "123456:CONTAINERS";
const REAL_KEY = "sk-ant-real-key-only-the-worker-holds-0123456789";
const REAL_OPENAI_KEY = "sk-proj-real-openai-key-only-the-worker-holds-0123456789";
const AGENT_CHAT = 1001;
const OTHER_CHAT = 1002;
const CODEX_CHAT = 1003;
const ADMIN_TOKEN = "containers-admin-token-0123456789";
/** The model the Worker pins a claude-agent chat to: the built-in default (src/config/model-catalog.ts). */
const PINNED_MODEL = DEFAULT_MODELS["claude-agent"];

const api = new FakeAnthropic();
const openai = new FakeOpenAI({ apiKey: REAL_OPENAI_KEY });
let fakes: Fakes;
let host: ContainerHost;
let bot: Bot;
let updateId = 1;
const measured: Record<string, number | number[]> = {};

beforeAll(async () => {
  await api.start();
  await openai.start();
  fakes = await startFakes();
  host = await new ContainerHost({
    image: IMAGE,
    botToken: BOT_TOKEN,
    anthropicApiKey: REAL_KEY,
    anthropicBaseUrl: api.url,
    openaiApiKey: REAL_OPENAI_KEY,
    openaiBaseUrl: `${openai.url}/v1`,
    maxOutputTokens: 16000,
  }).start();
  bot = await startBot(fakes.url, {
    vars: {
      TELEGRAM_BOT_TOKEN: BOT_TOKEN,
      ALLOWED_CHAT_IDS: `${AGENT_CHAT},${OTHER_CHAT},${CODEX_CHAT}`,
      ADMIN_USER_IDS: `${AGENT_CHAT}`,
      ADMIN_TOKEN,
      // The Worker's own Anthropic provider is not used here; only the proxy (in `host`) knows the real key.
      ANTHROPIC_API_KEY: "not-the-key-the-container-uses",
      OPENAI_API_KEY: "not-the-openai-key-the-container-uses",
      AGENT_RUNNER_URL: host.url,
      AGENT_RUNNER_TOKEN: "unused-the-host-adds-each-containers-own",
      AGENT_CALLBACK_URL: "http://127.0.0.1:0",
      AGENT_TIMEOUT_SECONDS: "120",
    },
    callbackToSelf: true,
  });
}, 180_000);

afterAll(async () => {
  await writeFile(".ci/containers-measured.json", `${JSON.stringify(measured, null, 2)}\n`).catch(() => undefined);
  console.log(`[containers] measured: ${JSON.stringify(measured)}`);
  if (process.env.CONTAINER_LOGS) {
    for (const [chatKey, container] of host?.containers ?? []) {
      console.log(`[containers] ${chatKey}:\n${await docker("logs", "--tail", "40", container.name).catch(String)}`);
    }
  }
  await bot?.stop();
  await host?.close();
  await fakes?.close();
  await api.close();
  await openai.close();
}, 60_000);

function say(chatId: number, text: string, fromId = chatId): Promise<Response> {
  return fetch(`${bot.url}/telegram/webhook`, {
    method: "POST",
    headers: { "x-telegram-bot-api-secret-token": bot.secret, "content-type": "application/json" },
    body: JSON.stringify({
      update_id: updateId++,
      message: {
        message_id: updateId,
        date: Math.floor(Date.now() / 1000),
        chat: { id: chatId, type: "private" },
        from: { id: fromId, is_bot: false, first_name: "Ada" },
        text,
      },
    }),
  });
}

/** What the chat was sent, in order: messages, and rich messages (an answer that used tools lists its steps). */
async function sent(chatId: number): Promise<string[]> {
  const answer = await fetch(`${fakes.url}/__control/requests?service=telegram&chatId=${chatId}`);
  return ((await answer.json()) as RecordedRequest[])
    .filter((request) => request.method === "sendMessage" || request.method === "sendRichMessage")
    .map(textOf);
}

/** The first message to the chat after its first `before` that matches (status lines and the like are skipped). */
async function messageAfter(chatId: number, before: number, match: RegExp, timeoutMs = 90_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const texts = await sent(chatId);
    const found = texts.slice(before).find((text) => match.test(text));
    if (found !== undefined) return found;
    if (Date.now() > deadline)
      throw new Error(`no message matching ${match} to ${chatId}; sent: ${JSON.stringify(texts)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function configure(chatId: number, config: Record<string, unknown>): Promise<void> {
  const configured = await fetch(`${bot.url}/admin/chats/${chatId}/config`, {
    method: "PUT",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(config),
  });
  expect(configured.status).toBe(200);
}

function textOf(request: RecordedRequest): string {
  const body = request.body as { text?: unknown; rich_message?: { markdown?: unknown } };
  return String(body.text ?? body.rich_message?.markdown ?? "");
}

const mainCalls = () => api.requests.filter((request) => isMainLoop(request.body));

describe("the agent image, run for real", () => {
  it("answers a claude-agent chat: the real key added by the Worker's proxy, the model pinned, tokens capped", async () => {
    const configured = await fetch(`${bot.url}/admin/chats/${AGENT_CHAT}/config`, {
      method: "PUT",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ provider: "claude-agent" }),
    });
    expect(configured.status).toBe(200);
    api.respond = (body) =>
      isMainLoop(body)
        ? { kind: "message", blocks: [{ type: "text", text: "Hello from inside the container." }] }
        : undefined;

    const began = performance.now();
    await say(AGENT_CHAT, "Hello");
    const answer = await messageAfter(AGENT_CHAT, 0, /container/);
    measured.firstAnswerMs = Math.round(performance.now() - began);
    measured.coldStartMs = host.coldStarts[0]!.ms;

    expect(answer).toBe("Hello from inside the container.");
    expect(api.requests.length).toBeGreaterThan(0);
    for (const request of api.requests) {
      expect(request.headers["x-api-key"]).toBe(REAL_KEY);
      expect(request.headers.authorization).toBeUndefined();
      if (request.body?.model !== undefined) expect(request.body.model).toBe(PINNED_MODEL);
      if (typeof request.body?.max_tokens === "number") expect(request.body.max_tokens).toBeLessThanOrEqual(16000);
    }
  }, 180_000);

  it("keeps the key out of the container: not in its environment, its processes or its files; runs as non-root", async () => {
    const name = host.nameOf(`chat:${AGENT_CHAT}`);
    const configured = await docker("inspect", "--format", "{{json .Config.Env}} {{.Config.User}}", name);
    expect(configured).not.toContain(REAL_KEY);
    expect(configured).not.toContain("ANTHROPIC_API_KEY");
    expect(configured).toMatch(/ node$/);
    const environments = await docker(
      "exec",
      name,
      "sh",
      "-c",
      "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'",
    );
    expect(environments).toContain("RUNNER_MODEL_PROXY=worker");
    expect(environments).not.toContain(REAL_KEY);
    const found = await docker(
      "exec",
      name,
      "sh",
      "-c",
      `grep -rl --exclude-dir=node_modules -- '${REAL_KEY}' /app /workspace /home /tmp /etc /var 2>/dev/null; true`,
    );
    expect(found).toBe("");
    expect(await docker("exec", name, "id", "-u")).toBe("1000");
    expect(await docker("exec", name, "sh", "-c", "stat -c %U /workspace")).toBe("node");
  }, 60_000);

  it("reaches the chat's D1 through the tool callback: remember, then recall, in one agent turn", async () => {
    const fact = `The container test ran at ${Date.now()}`;
    let recalled = "";
    api.respond = (body) => {
      if (!isMainLoop(body)) return undefined;
      const results = toolResults(body);
      if (results.has("toolu_recall")) {
        recalled = JSON.stringify(results.get("toolu_recall")!.content);
        return { kind: "message", blocks: [{ type: "text", text: "Remembered and recalled." }] };
      }
      if (results.has("toolu_remember")) {
        return {
          kind: "message",
          blocks: [{ type: "tool_use", id: "toolu_recall", name: "mcp__bot__recall", input: {} }],
        };
      }
      return {
        kind: "message",
        blocks: [{ type: "tool_use", id: "toolu_remember", name: "mcp__bot__remember", input: { fact } }],
      };
    };
    const before = (await sent(AGENT_CHAT)).length;
    await say(AGENT_CHAT, "Remember that the test ran");
    const answer = await messageAfter(AGENT_CHAT, before, /Remembered and recalled|⚠️/);
    // A private answer that used tools is a rich message ending with its steps, the agent's included.
    expect(answer).toMatch(/^Remembered and recalled\.\n\n<details><summary>🛠 2 steps<\/summary>/);
    expect(answer).toContain("remember");
    expect(recalled).toContain(fact);
  }, 120_000);

  it("runs an /agent task in a chat on another provider, in that chat's own container", async () => {
    api.respond = (body) =>
      isMainLoop(body) ? { kind: "message", blocks: [{ type: "text", text: "Task done in a container." }] } : undefined;
    await say(OTHER_CHAT, "/agent list the workspace", AGENT_CHAT);
    expect(await messageAfter(OTHER_CHAT, 0, /Task done|⚠️|Usage/)).toBe("Task done in a container.");
    expect(host.nameOf(`chat:${OTHER_CHAT}`)).not.toBe(host.nameOf(`chat:${AGENT_CHAT}`));
    measured.secondContainerColdStartMs = host.coldStarts.at(-1)!.ms;
  }, 180_000);

  it("/stop ends a running agent turn, and the run's token no longer opens the model proxy", async () => {
    api.respond = (body) => (isMainLoop(body) ? { kind: "hang" } : undefined);
    const before = mainCalls().length;
    const ended = host.endedRuns.length;
    const sentBefore = (await sent(AGENT_CHAT)).length;
    await say(AGENT_CHAT, "Start a long job");
    await api.waitFor(() => mainCalls().length > before, 60_000, "the hanging model call");
    const token = host.lastRunToken;
    const ask = () =>
      fetch(`${host.proxyUrl}/v1/messages/count_tokens`, {
        method: "POST",
        headers: { "x-api-key": token, "content-type": "application/json" },
        body: JSON.stringify({ model: "any", messages: [{ role: "user", content: "hi" }] }),
      });
    expect((await ask()).status).toBe(200);

    await say(AGENT_CHAT, "/stop");
    expect(await messageAfter(AGENT_CHAT, sentBefore, /Stopped|⚠️/)).toBe("⏹ Stopped.");
    await expect.poll(() => host.endedRuns.length, { timeout: 30_000 }).toBeGreaterThan(ended);
    expect((await ask()).status).toBe(401);
  }, 120_000);

  it("tells the user clearly when the container dies mid-run, keeps the history clean, and starts a new one", async () => {
    api.respond = (body) => (isMainLoop(body) ? { kind: "hang" } : undefined);
    const before = mainCalls().length;
    const sentBefore = (await sent(AGENT_CHAT)).length;
    await say(AGENT_CHAT, "A job the container will not survive");
    await api.waitFor(() => mainCalls().length > before, 60_000, "the hanging model call");
    await host.stop(`chat:${AGENT_CHAT}`, "kill");
    expect(await messageAfter(AGENT_CHAT, sentBefore, /^⚠️/)).toMatch(/^⚠️ \S/);

    api.respond = (body) =>
      isMainLoop(body) ? { kind: "message", blocks: [{ type: "text", text: "Back again." }] } : undefined;
    const restarts = host.coldStarts.length;
    const sentAfterKill = (await sent(AGENT_CHAT)).length;
    await say(AGENT_CHAT, "Are you there?");
    expect(await messageAfter(AGENT_CHAT, sentAfterKill, /Back again|⚠️/)).toBe("Back again.");
    expect(host.coldStarts.length).toBe(restarts + 1);
    const last = mainCalls().at(-1)!;
    // The killed turn left no half-answer and no error text in the conversation the model sees.
    expect(messagesText(last.body)).toContain("A job the container will not survive");
    expect(messagesText(last.body)).not.toContain("⚠️");
    expect(messagesText(last.body)).not.toContain("⏹");
  }, 180_000);

  it("wakes a container that went to sleep with the next message (cold start timed)", async () => {
    api.respond = (body) =>
      isMainLoop(body) ? { kind: "message", blocks: [{ type: "text", text: "Awake." }] } : undefined;
    const samples: number[] = [];
    const answers: number[] = [];
    for (let round = 0; round < 3; round++) {
      await host.stop(`chat:${AGENT_CHAT}`, "stop");
      const count = (await sent(AGENT_CHAT)).length;
      const began = performance.now();
      await say(AGENT_CHAT, `Wake up ${round}`);
      expect(await messageAfter(AGENT_CHAT, count, /Awake|⚠️/)).toBe("Awake.");
      answers.push(Math.round(performance.now() - began));
      samples.push(host.coldStarts.at(-1)!.ms);
    }
    measured.wakeColdStartMs = samples;
    measured.wakeWebhookToAnswerMs = answers;
  }, 240_000);
});

describe("the agent image with codex-agent", () => {
  const has = (body: ResponsesBody, text: string) => JSON.stringify(body.input ?? []).includes(text);

  it("answers a codex-agent chat from the container: the real OpenAI key added by the Worker's proxy, output capped", async () => {
    await configure(CODEX_CHAT, { provider: "codex-agent" });
    openai.respond = () => ({
      kind: "response",
      output: [{ type: "message", text: "Hello from Codex in the container." }],
    });
    const began = performance.now();
    await say(CODEX_CHAT, "Hello", AGENT_CHAT);
    expect(await messageAfter(CODEX_CHAT, 0, /Codex|⚠️/)).toBe("Hello from Codex in the container.");
    measured.codexFirstAnswerMs = Math.round(performance.now() - began);
    measured.codexColdStartMs = host.coldStarts.at(-1)!.ms;

    const calls = openai.modelCalls();
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.headers.authorization).toBe(`Bearer ${REAL_OPENAI_KEY}`);
      // The CLI's default model (the chat names none), pinned; the cap added; nothing kept on OpenAI's side.
      expect(call.body).toMatchObject({ model: "gpt-6.1-sol", max_output_tokens: 16000, store: false });
      expect(call.body).not.toHaveProperty("client_metadata");
      expect(call.headers["x-codex-turn-metadata"]).toBeUndefined();
    }
  }, 180_000);

  it("keeps the OpenAI key out of the container, and reaches the chat's D1 through the bot's tools (remember, recall)", async () => {
    const name = host.nameOf(`chat:${CODEX_CHAT}`);
    const configured = await docker("inspect", "--format", "{{json .Config.Env}}", name);
    expect(configured).not.toContain(REAL_OPENAI_KEY);
    expect(configured).not.toContain("OPENAI_API_KEY");
    expect(configured).toContain("AGENT_SANDBOX=container");
    const environments = await docker(
      "exec",
      name,
      "sh",
      "-c",
      "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n'",
    );
    expect(environments).toContain("OPENAI_BASE_URL=http://openai.internal:");
    expect(environments).not.toContain(REAL_OPENAI_KEY);
    const files = await docker(
      "exec",
      name,
      "sh",
      "-c",
      `grep -rl --exclude-dir=node_modules -- '${REAL_OPENAI_KEY}' /app /workspace /home /tmp /etc /var 2>/dev/null; true`,
    );
    expect(files).toBe("");

    await configure(CODEX_CHAT, { provider: "codex-agent", model: "gpt-5.5" });
    const fact = `Codex in a container remembered this at ${Date.now()}`;
    let recalled = "";
    openai.respond = (body) => {
      if (!has(body, "tool_search_output")) {
        return { kind: "response", output: [{ type: "tool_search_call", arguments: { query: "remember recall" } }] };
      }
      const outputs = [...functionOutputs(body).values()].map((output) => JSON.stringify(output));
      if (outputs.length === 0) {
        return {
          kind: "response",
          output: [{ type: "function_call", namespace: "mcp__bot", name: "remember", arguments: { fact } }],
        };
      }
      if (outputs.length === 1) {
        return {
          kind: "response",
          output: [{ type: "function_call", namespace: "mcp__bot", name: "recall", arguments: {} }],
        };
      }
      recalled = outputs[1]!;
      return { kind: "response", output: [{ type: "message", text: "Codex remembered and recalled." }] };
    };
    const before = (await sent(CODEX_CHAT)).length;
    await say(CODEX_CHAT, "Remember that Codex ran", AGENT_CHAT);
    expect(await messageAfter(CODEX_CHAT, before, /Codex remembered|⚠️/)).toMatch(
      /^Codex remembered and recalled\.(\n|$)/,
    );
    expect(recalled).toContain(fact);
  }, 180_000);
});
