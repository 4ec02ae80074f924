import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../../src/config/chat-config.ts";
import { includes } from "../../../src/config/id-list.ts";
import { DEFAULT_HISTORY_LIMIT } from "../../../src/config/knobs/history-knobs.ts";
import { builtInProvider, readSettings } from "../../../src/config/settings.ts";
import type { SettingName } from "../../../src/config/settings-schema.ts";
import type { Env } from "../../../src/env.ts";
import { healthReport } from "../../../src/http/routes/health.ts";

/** An environment with only the given variables: `readSettings` reads nothing but strings. */
function envOf(variables: Partial<Record<SettingName, string>> = {}): Partial<Record<SettingName, string>> {
  return variables;
}

const settingsWith = (variables: Partial<Record<SettingName, string>>) => readSettings(envOf(variables));

describe("readSettings with nothing set", () => {
  it("has the defaults and no problems", () => {
    const settings = readSettings(envOf());
    expect(settings.problems).toEqual([]);
    expect(settings.botToken).toBeUndefined();
    expect(settings.telegramApiBaseUrl).toBe("https://api.telegram.org");
    expect(settings.allowedChats).toEqual({ kind: "some", ids: new Set() });
    expect(settings.adminUserIds).toEqual({ kind: "some", ids: new Set() });
    expect(settings.botName).toBe("Assistant");
    expect(settings.defaultProvider).toBeUndefined();
    expect(settings.historyLimit).toBe(DEFAULT_HISTORY_LIMIT);
    expect(settings.historyMaxStored).toBe(DEFAULT_HISTORY_LIMIT * 10);
    expect(settings.providerMaxRetries).toBe(3);
    expect(settings.providerTimeoutMs).toBe(120_000);
    expect(settings.defaultTimezone).toBe("UTC");
    expect(settings.agentRunner).toEqual({ kind: "container" });
    expect(settings.toolCallback).toEqual({ kind: "container" });
    expect(settings.agentTimeoutMs).toBe(300_000);
    expect(settings.dailyTokenBudget).toBeUndefined();
    expect(settings.webFetch.enabled).toBe(true);
    expect(settings.ackReaction).toBe("private");
    expect(settings.richMessages).toBe("auto");
    expect(settings.mcp).toEqual({ listCacheMs: 300_000, timeoutMs: 20_000 });
  });
});

describe("RICH_MESSAGES", () => {
  it("chooses when answers are rich messages, and names a value it does not know", () => {
    expect(settingsWith({ RICH_MESSAGES: "always" }).richMessages).toBe("always");
    expect(settingsWith({ RICH_MESSAGES: "off" }).richMessages).toBe("off");
    const wrong = settingsWith({ RICH_MESSAGES: "sometimes" });
    expect(wrong.richMessages).toBe("auto");
    expect(wrong.problems).toEqual([expect.stringContaining("RICH_MESSAGES must be one of auto, always, off")]);
  });
});

describe("MCP settings", () => {
  it("read the cache time and the timeout, and name a bad one", () => {
    expect(settingsWith({ MCP_LIST_CACHE_SECONDS: "0", MCP_TIMEOUT_SECONDS: "5" }).mcp).toEqual({
      listCacheMs: 0,
      timeoutMs: 5_000,
    });
    const bad = settingsWith({ MCP_TIMEOUT_SECONDS: "0" });
    expect(bad.mcp.timeoutMs).toBe(20_000);
    expect(bad.problems).toEqual(["MCP_TIMEOUT_SECONDS must be a whole number from 1 to 300"]);
  });
});

describe("empty strings", () => {
  it("are unset, not values and not problems", () => {
    const blank = settingsWith({
      TELEGRAM_BOT_TOKEN: "",
      ADMIN_TOKEN: "   ",
      BOT_NAME: " ",
      ALLOWED_CHAT_IDS: "",
      HISTORY_LIMIT: "",
      PROVIDER_TIMEOUT_SECONDS: "  ",
      TELEGRAM_API_BASE_URL: "",
      OPENAI_BASE_URL: " ",
      DEFAULT_PROVIDER: "",
      DEFAULT_TIMEZONE: "",
      AGENT_RUNNER_URL: "",
      AGENT_CALLBACK_URL: "  ",
      DAILY_TOKEN_BUDGET: "",
      WEB_FETCH: "",
      ACK_REACTION: "",
    });
    expect(blank.problems).toEqual([]);
    expect(blank.botToken).toBeUndefined();
    expect(blank.adminToken).toBeUndefined();
    expect(blank.botName).toBe("Assistant");
    expect(blank.allowedChats).toEqual({ kind: "some", ids: new Set() });
    expect(blank.historyLimit).toBe(DEFAULT_HISTORY_LIMIT);
    expect(blank.providerTimeoutMs).toBe(120_000);
    expect(blank.telegramApiBaseUrl).toBe("https://api.telegram.org");
    expect(blank.openaiBaseUrl).toBeUndefined();
    expect(blank.defaultProvider).toBeUndefined();
    expect(blank.defaultTimezone).toBe("UTC");
    expect(blank.agentRunner).toEqual({ kind: "container" });
    expect(blank.toolCallback).toEqual({ kind: "container" });
    expect(blank.dailyTokenBudget).toBeUndefined();
    expect(blank.webFetch.enabled).toBe(true);
  });

  it("trims the values that are set", () => {
    const settings = settingsWith({ TELEGRAM_BOT_TOKEN: "  123:abc \n", BOT_NAME: " Testbot " });
    expect(settings.botToken).toBe("123:abc");
    expect(settings.botName).toBe("Testbot");
  });
});

describe("id lists", () => {
  it("* allows every chat", () => {
    const settings = settingsWith({ ALLOWED_CHAT_IDS: " * " });
    expect(settings.allowedChats).toEqual({ kind: "everyone" });
    expect(includes(settings.allowedChats, 123)).toBe(true);
    expect(settings.problems).toEqual([]);
  });

  it("* is refused for admins, who get nobody", () => {
    const settings = settingsWith({ ADMIN_USER_IDS: "*", ADMIN_CHAT_IDS: "*" });
    expect(settings.adminUserIds).toEqual({ kind: "some", ids: new Set() });
    expect(settings.adminChatIds).toEqual({ kind: "some", ids: new Set() });
    expect(settings.problems).toEqual([
      "ADMIN_USER_IDS cannot be *: list the ids",
      "ADMIN_CHAT_IDS cannot be *: list the ids",
    ]);
  });

  it("reads a comma list with spaces, negative ids and empty entries", () => {
    const settings = settingsWith({ ALLOWED_CHAT_IDS: " 1001 , -1002003004005,, 42 ,", ADMIN_USER_IDS: "7" });
    expect(settings.allowedChats).toEqual({ kind: "some", ids: new Set([1001, -1002003004005, 42]) });
    expect(includes(settings.allowedChats, -1002003004005)).toBe(true);
    expect(includes(settings.allowedChats, 1002)).toBe(false);
    expect(settings.adminUserIds).toEqual({ kind: "some", ids: new Set([7]) });
    expect(settings.problems).toEqual([]);
  });

  it("reports a bad entry by the variable's name, never with its value, and keeps the good ones", () => {
    const bad = ["not-an-id", "12.5", "1e3", "0x10", "9007199254740993", "@someone"];
    const settings = settingsWith({ ALLOWED_CHAT_IDS: `1001, ${bad.join(", ")}, 1002` });
    expect(settings.allowedChats).toEqual({ kind: "some", ids: new Set([1001, 1002]) });
    expect(settings.problems).toHaveLength(bad.length);
    for (const problem of settings.problems) {
      expect(problem).toBe("ALLOWED_CHAT_IDS has an entry that is not a chat or user id");
    }
    const reported = settings.problems.join("\n");
    for (const value of bad) expect(reported).not.toContain(value);
  });

  it("accepts ids up to 2^53 - 1", () => {
    const settings = settingsWith({ ADMIN_CHAT_IDS: "9007199254740991,-9007199254740991" });
    expect(settings.adminChatIds).toEqual({ kind: "some", ids: new Set([9007199254740991, -9007199254740991]) });
    expect(settings.problems).toEqual([]);
  });
});

describe("whole numbers", () => {
  it("reads one in range", () => {
    const settings = settingsWith({
      HISTORY_LIMIT: " 100 ",
      PROVIDER_TIMEOUT_SECONDS: "600",
      PROVIDER_MAX_RETRIES: "0",
    });
    expect(settings.historyLimit).toBe(100);
    expect(settings.historyMaxStored).toBe(1000);
    expect(settings.providerTimeoutMs).toBe(600_000);
    expect(settings.providerMaxRetries).toBe(0);
    expect(settings.problems).toEqual([]);
  });

  it.each(["1", "1001", "2.5", "abc", "-40", "Infinity"])(
    "HISTORY_LIMIT=%s falls back to the default with a problem that names the range",
    (value) => {
      const settings = settingsWith({ HISTORY_LIMIT: value });
      expect(settings.historyLimit).toBe(DEFAULT_HISTORY_LIMIT);
      expect(settings.problems).toEqual(["HISTORY_LIMIT must be a whole number from 2 to 1000"]);
    },
  );

  it("refuses values past either end for other variables too", () => {
    const settings = settingsWith({
      PROVIDER_TIMEOUT_SECONDS: "0",
      PROVIDER_MAX_RETRIES: "11",
      AGENT_TIMEOUT_SECONDS: "3601",
    });
    expect(settings.providerTimeoutMs).toBe(120_000);
    expect(settings.providerMaxRetries).toBe(3);
    expect(settings.agentTimeoutMs).toBe(300_000);
    expect(settings.problems).toEqual([
      "PROVIDER_MAX_RETRIES must be a whole number from 0 to 10",
      "PROVIDER_TIMEOUT_SECONDS must be a whole number from 1 to 600",
      "AGENT_TIMEOUT_SECONDS must be a whole number from 1 to 3600",
    ]);
  });

  it("keeps HISTORY_MAX_STORED at least HISTORY_LIMIT", () => {
    const settings = settingsWith({ HISTORY_LIMIT: "50", HISTORY_MAX_STORED: "49" });
    expect(settings.historyMaxStored).toBe(500);
    expect(settings.problems).toEqual(["HISTORY_MAX_STORED must be a whole number from 50 to 1000000"]);
  });
});

describe("URLs", () => {
  it("removes trailing slashes", () => {
    const settings = settingsWith({
      TELEGRAM_API_BASE_URL: "http://127.0.0.1:9999/telegram///",
      OPENAI_BASE_URL: "https://gateway.example/v1/",
      ANTHROPIC_BASE_URL: "https://anthropic.example",
    });
    expect(settings.telegramApiBaseUrl).toBe("http://127.0.0.1:9999/telegram");
    expect(settings.openaiBaseUrl).toBe("https://gateway.example/v1");
    expect(settings.anthropicBaseUrl).toBe("https://anthropic.example");
    expect(settings.problems).toEqual([]);
  });

  it.each(["ftp://files.example/", "javascript:alert(1)", "not a url", "//no-scheme.example", "file:///etc/passwd"])(
    "refuses %s, by name and without the value",
    (value) => {
      const settings = settingsWith({ TELEGRAM_API_BASE_URL: value, OPENAI_BASE_URL: value });
      expect(settings.telegramApiBaseUrl).toBe("https://api.telegram.org");
      expect(settings.openaiBaseUrl).toBeUndefined();
      expect(settings.problems).toEqual([
        "TELEGRAM_API_BASE_URL must be an http(s) URL",
        "OPENAI_BASE_URL must be an http(s) URL",
      ]);
    },
  );
});

describe("DEFAULT_PROVIDER and DEFAULT_TIMEZONE", () => {
  it("reads a known provider", () => {
    expect(settingsWith({ DEFAULT_PROVIDER: "anthropic" }).defaultProvider).toBe("anthropic");
    expect(settingsWith({ DEFAULT_PROVIDER: " claude-agent " }).defaultProvider).toBe("claude-agent");
  });

  it("reports an unknown provider and has none", () => {
    const settings = settingsWith({ DEFAULT_PROVIDER: "gemini" });
    expect(settings.defaultProvider).toBeUndefined();
    expect(settings.problems).toEqual([
      "DEFAULT_PROVIDER must be one of openai, anthropic, claude-agent, codex-agent, workers-ai",
    ]);
  });

  it("without DEFAULT_PROVIDER, chats use the first provider with a key, else Workers AI (which needs none)", () => {
    expect(builtInProvider(settingsWith({}))).toBe("workers-ai");
    expect(resolveConfig(undefined, settingsWith({}))).toMatchObject({
      provider: "workers-ai",
      model: "@cf/meta/llama-3.3-70b-instruct-fp8-fast",
      source: { provider: "built-in", model: "built-in" },
    });
    expect(builtInProvider(settingsWith({ ANTHROPIC_API_KEY: "k" }))).toBe("anthropic");
    expect(builtInProvider(settingsWith({ ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k" }))).toBe("openai");
    expect(settingsWith({ DEFAULT_PROVIDER: "workers-ai" }).defaultProvider).toBe("workers-ai");
  });

  it("picks a chat's agent: its agent provider, else its config's agent, else by the keys set (Anthropic first)", () => {
    const agentWith = (config: Parameters<typeof resolveConfig>[0], env: Partial<Record<SettingName, string>>) =>
      resolveConfig(config, settingsWith(env)).agent;
    expect(agentWith({ provider: "codex-agent" }, { ANTHROPIC_API_KEY: "k" })).toBe("codex-agent");
    expect(agentWith({ provider: "openai", agent: "codex-agent" }, { ANTHROPIC_API_KEY: "k" })).toBe("codex-agent");
    expect(agentWith(undefined, { ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k" })).toBe("claude-agent");
    expect(agentWith(undefined, { OPENAI_API_KEY: "k" })).toBe("codex-agent");
    expect(agentWith(undefined, {})).toBe("claude-agent");
    expect(resolveConfig({ provider: "codex-agent" }, settingsWith({})).model).toBe("gpt-6.1-sol");
  });

  it("reaches Workers AI through its binding, or an endpoint when both its URL and token are set", () => {
    expect(settingsWith({}).workersAi).toEqual({ kind: "binding" });
    const endpoint = settingsWith({
      WORKERS_AI_BASE_URL: "https://api.cloudflare.com/client/v4/accounts/abc/ai/v1/",
      WORKERS_AI_API_TOKEN: "token",
    });
    expect(endpoint.workersAi).toEqual({
      kind: "endpoint",
      baseUrl: "https://api.cloudflare.com/client/v4/accounts/abc/ai/v1",
      apiToken: "token",
    });
    const half = settingsWith({ WORKERS_AI_API_TOKEN: "secret-token-value" });
    expect(half.workersAi).toEqual({ kind: "binding" });
    expect(half.problems).toEqual(["WORKERS_AI_BASE_URL and WORKERS_AI_API_TOKEN must be set together"]);
    expect(JSON.stringify(half.problems)).not.toContain("secret-token-value");
  });

  it("reads an IANA time zone", () => {
    const settings = settingsWith({ DEFAULT_TIMEZONE: "Europe/Berlin" });
    expect(settings.defaultTimezone).toBe("Europe/Berlin");
    expect(settings.problems).toEqual([]);
  });

  it("falls back to UTC for an invalid time zone, with a problem", () => {
    const settings = settingsWith({ DEFAULT_TIMEZONE: "Mars/Olympus_Mons" });
    expect(settings.defaultTimezone).toBe("UTC");
    expect(settings.problems).toEqual(["DEFAULT_TIMEZONE must be an IANA time zone such as Europe/Berlin"]);
  });
});

describe("agentRunner and toolCallback", () => {
  it("are the container when their URLs are not set", () => {
    const settings = settingsWith({ AGENT_RUNNER_TOKEN: "ignored without a URL" });
    expect(settings.agentRunner).toEqual({ kind: "container" });
    expect(settings.toolCallback).toEqual({ kind: "container" });
  });

  it("are a URL and the public route when set", () => {
    const settings = settingsWith({
      AGENT_RUNNER_URL: "http://127.0.0.1:8080/",
      AGENT_RUNNER_TOKEN: " runner-token ",
      AGENT_CALLBACK_URL: "https://bot.example.workers.dev/",
    });
    expect(settings.agentRunner).toEqual({ kind: "url", url: "http://127.0.0.1:8080", token: "runner-token" });
    expect(settings.toolCallback).toEqual({ kind: "public-route", baseUrl: "https://bot.example.workers.dev" });
    expect(settings.problems).toEqual([]);
  });

  it("have no token when AGENT_RUNNER_TOKEN is empty", () => {
    const settings = settingsWith({ AGENT_RUNNER_URL: "http://runner.local:8080", AGENT_RUNNER_TOKEN: "" });
    expect(settings.agentRunner).toEqual({ kind: "url", url: "http://runner.local:8080", token: undefined });
  });

  it("stay the container when the URL is unusable, with a problem", () => {
    const settings = settingsWith({ AGENT_RUNNER_URL: "runner:8080", AGENT_CALLBACK_URL: "ws://bot.example" });
    expect(settings.agentRunner).toEqual({ kind: "container" });
    expect(settings.toolCallback).toEqual({ kind: "container" });
    expect(settings.problems).toEqual([
      "AGENT_RUNNER_URL must be an http(s) URL",
      "AGENT_CALLBACK_URL must be an http(s) URL",
    ]);
  });
});

describe("problems", () => {
  it("never carry a variable's value", () => {
    const secretish = "sk-this-value-must-not-appear";
    const settings = settingsWith({
      ALLOWED_CHAT_IDS: secretish,
      ADMIN_USER_IDS: secretish,
      HISTORY_LIMIT: secretish,
      TELEGRAM_API_BASE_URL: secretish,
      AGENT_RUNNER_URL: secretish,
      DEFAULT_PROVIDER: secretish,
      DEFAULT_TIMEZONE: secretish,
      DAILY_TOKEN_BUDGET: secretish,
      WEB_FETCH: secretish,
      ACK_REACTION: secretish,
      MODEL_PRICES: secretish,
    });
    expect(settings.problems).toHaveLength(11);
    expect(settings.problems.join("\n")).not.toContain("must-not-appear");
  });
});

describe("/health without any API key", () => {
  const keyless = {
    TELEGRAM_BOT_TOKEN: "1:x",
    TELEGRAM_WEBHOOK_SECRET: "s",
    ALLOWED_CHAT_IDS: "1",
  } satisfies Partial<Record<SettingName, string>>;

  it("is ok on Workers AI's binding, and names the binding when it is missing", () => {
    // healthReport reads the bindings too: a partial environment stands in for the generated Env (the one cast).
    const asEnv = (variables: object) => variables as unknown as Env;
    expect(healthReport(asEnv({ ...keyless, AI: {}, MEDIA: {} }))).toMatchObject({
      ok: true,
      plan: "paid",
      missing: [],
      problems: [],
    });
    expect(healthReport(asEnv(keyless)).missing).toEqual(["AI (binding)"]);
    // An explicit provider without its key is still reported.
    expect(healthReport(asEnv({ ...keyless, DEFAULT_PROVIDER: "openai" })).missing).toEqual(["OPENAI_API_KEY"]);
  });
});

describe("media settings", () => {
  it("have defaults: 20 MB, 4 images a turn, 1568 px, transcription on, no image model", () => {
    const settings = settingsWith({});
    expect(settings.media.maxFileBytes).toBe(20 * 1024 * 1024);
    expect(settings.media.maxImagesPerTurn).toBe(4);
    expect(settings.media.imageMaxEdge).toBe(1568);
    expect(settings.transcription).toEqual({ kind: "api", model: "gpt-4o-mini-transcribe", baseUrl: undefined });
    expect(settings.imageModel).toBeUndefined();
  });

  it("never go past the Bot API's 20 MB, and say so", () => {
    const settings = settingsWith({ MEDIA_MAX_FILE_MB: "50" });
    expect(settings.media.maxFileBytes).toBe(20 * 1024 * 1024);
    expect(settings.problems).toEqual(["MEDIA_MAX_FILE_MB must be a whole number from 1 to 20"]);
  });

  it("turn transcription off, and read a base URL and model", () => {
    expect(settingsWith({ TRANSCRIPTION_MODEL: "off" }).transcription).toEqual({ kind: "off" });
    const settings = settingsWith({
      OPENAI_API_KEY: "k",
      TRANSCRIPTION_MODEL: "whisper-large-v3",
      TRANSCRIPTION_BASE_URL: "https://api.groq.com/openai/v1/",
    });
    expect(settings.transcription).toEqual({
      kind: "api",
      model: "whisper-large-v3",
      baseUrl: "https://api.groq.com/openai/v1",
    });
    expect(settings.problems).toEqual([]);
  });

  it("report a transcription or image model without an OpenAI key", () => {
    const settings = settingsWith({ TRANSCRIPTION_MODEL: "gpt-4o-mini-transcribe", IMAGE_MODEL: "gpt-image-1" });
    expect(settings.problems).toEqual([
      "TRANSCRIPTION_MODEL needs OPENAI_API_KEY (or set it to off): voice notes are not transcribed",
      "IMAGE_MODEL needs OPENAI_API_KEY: generate_image is not offered",
    ]);
  });

  it("read VISION_MODELS patterns and refuse odd ones", () => {
    expect(settingsWith({ VISION_MODELS: " llava*, gpt-4o " }).media.visionModels).toEqual(["llava*", "gpt-4o"]);
    expect(settingsWith({ VISION_MODELS: "gpt 4o" }).problems).toEqual([
      "VISION_MODELS must be comma-separated model names, where * matches anything",
    ]);
  });
});

describe("AGENT_EGRESS_HOSTS", () => {
  it("is nothing by default, the whole internet with *, or a list of host names", () => {
    expect(settingsWith({}).agentEgress).toEqual({ kind: "none" });
    expect(settingsWith({ AGENT_EGRESS_HOSTS: "*" }).agentEgress).toEqual({ kind: "internet" });
    expect(settingsWith({ AGENT_EGRESS_HOSTS: " GitHub.com, *.npmjs.org ,," }).agentEgress).toEqual({
      kind: "hosts",
      hosts: ["github.com", "*.npmjs.org"],
    });
  });

  it.each(["https://github.com", "github.com/path", "github.com:443", "*, github.com", "localhost"])(
    "refuses %s by name, and allows nothing then",
    (value) => {
      const settings = settingsWith({ AGENT_EGRESS_HOSTS: value });
      expect(settings.agentEgress).toEqual({ kind: "none" });
      expect(settings.problems).toEqual([
        "AGENT_EGRESS_HOSTS must be empty, * or a comma-separated list of host names",
      ]);
    },
  );
});

describe("speech and guest mode", () => {
  it("speaks with OpenAI's gpt-4o-mini-tts when there is a key, else Workers AI's MeloTTS, unless off", () => {
    expect(settingsWith({ OPENAI_API_KEY: "sk-test" }).speech).toEqual({
      kind: "openai",
      model: "gpt-4o-mini-tts",
      voice: undefined,
      baseUrl: undefined,
      maxChars: 1500,
    });
    expect(settingsWith({}).speech).toEqual({
      kind: "workers-ai",
      model: "@cf/myshell-ai/melotts",
      voice: undefined,
      maxChars: 1500,
    });
    expect(settingsWith({ SPEECH_MODEL: "off", OPENAI_API_KEY: "sk-test" }).speech.kind).toBe("off");
    expect(
      settingsWith({ SPEECH_MODEL: "@cf/deepgram/aura-2-en", SPEECH_VOICE: "luna", OPENAI_API_KEY: "sk-test" }).speech,
    ).toEqual({ kind: "workers-ai", model: "@cf/deepgram/aura-2-en", voice: "luna", maxChars: 1500 });
    expect(
      settingsWith({ OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: "http://127.0.0.1:1/v1", SPEECH_MAX_CHARS: "800" })
        .speech,
    ).toMatchObject({ kind: "openai", baseUrl: "http://127.0.0.1:1/v1", maxChars: 800 });
  });

  it("reports an OpenAI speech model named without a key, by name", () => {
    const settings = settingsWith({ SPEECH_MODEL: "tts-1" });
    expect(settings.speech.kind).toBe("off");
    expect(settings.problems).toEqual([expect.stringContaining("SPEECH_MODEL needs OPENAI_API_KEY")]);
  });

  it("reads GUEST_MODE, known by default", () => {
    expect(settingsWith({}).guestMode).toBe("known");
    expect(settingsWith({ GUEST_MODE: "admins" }).guestMode).toBe("admins");
    const wrong = settingsWith({ GUEST_MODE: "everyone" });
    expect(wrong.guestMode).toBe("known");
    expect(wrong.problems).toEqual(["GUEST_MODE must be one of off, admins, known"]);
  });
});

describe("WORKERS_PLAN", () => {
  it("is paid when empty or unset, free when the deploy says so, and names a value it does not know", () => {
    expect(settingsWith({}).plan).toBe("paid");
    expect(settingsWith({ WORKERS_PLAN: "" }).plan).toBe("paid");
    expect(settingsWith({ WORKERS_PLAN: "free" }).plan).toBe("free");
    expect(settingsWith({ WORKERS_PLAN: "Paid" }).plan).toBe("paid");
    const wrong = settingsWith({ WORKERS_PLAN: "enterprise" });
    expect(wrong.plan).toBe("paid");
    expect(wrong.problems).toEqual(["WORKERS_PLAN must be one of paid, free"]);
  });
});
