import { describe, expect, it } from "vitest";
import { largerUsage } from "../../../src/adapters/container-agent.ts";
import {
  admitCall,
  EMPTY_USAGE,
  forwardedBody,
  forwardedHeaders,
  MAX_MODEL_CALLS_PER_MINUTE,
  pin,
  usageMeter,
} from "../../../src/durable/model-proxy.ts";
import type { OpenRun } from "../../../src/durable/open-runs.ts";
import { OpenRuns } from "../../../src/durable/open-runs.ts";

describe("pin", () => {
  it("replaces the model and caps max_tokens, and a thinking budget with it", () => {
    const pinned = pin(
      { model: "claude-opus-expensive", max_tokens: 64_000, thinking: { type: "enabled", budget_tokens: 30_000 } },
      { model: "claude-pinned", maxTokens: 16_000 },
    );
    expect(pinned).toEqual({
      model: "claude-pinned",
      max_tokens: 16_000,
      thinking: { type: "enabled", budget_tokens: 15_999 },
    });
    expect(pin({ model: "x", max_tokens: 500 }, { model: "y", maxTokens: 16_000 })).toEqual({
      model: "y",
      max_tokens: 500,
    });
    expect(pin({ model: "x", max_tokens: -1 }, { model: "y", maxTokens: 2_000 }).max_tokens).toBe(2_000);
    expect(pin({ model: "x" }, { model: "y", maxTokens: undefined })).toEqual({ model: "y" });
  });
});

describe("what the proxy forwards", () => {
  it("keeps the fields and client tools the CLI needs, and drops server-side tools and the rest", () => {
    const body = forwardedBody({
      model: "x",
      messages: [],
      max_tokens: 10,
      stream: true,
      mcp_servers: [{ type: "url", url: "https://evil.example/mcp" }],
      container: "ctr_1",
      service_tier: "priority",
      tools: [
        { name: "Bash", input_schema: { type: "object" } },
        { type: "custom", name: "mcp__bot__remember", input_schema: { type: "object" } },
        { type: "web_search_20250305", name: "web_search" },
        { type: "code_execution_20250825", name: "code_execution" },
      ],
    });
    expect(Object.keys(body).sort()).toEqual(["max_tokens", "messages", "model", "stream", "tools"]);
    expect((body.tools as { name: string }[]).map((tool) => tool.name)).toEqual(["Bash", "mcp__bot__remember"]);
  });

  it("sends the key and known betas only, never the CLI's own authorization", () => {
    const headers = forwardedHeaders(
      new Headers({
        authorization: "Bearer run-token",
        "x-api-key": "run-token",
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "claude-code-20250219, mcp-client-2025-04-04,interleaved-thinking-2025-05-14",
        "x-stainless-os": "Linux",
      }),
      "sk-ant-real",
    );
    expect([...headers.entries()].sort()).toEqual([
      ["anthropic-beta", "claude-code-20250219,interleaved-thinking-2025-05-14"],
      ["anthropic-version", "2023-06-01"],
      ["x-api-key", "sk-ant-real"],
    ]);
  });
});

describe("usageMeter on a stream the client hangs up on", () => {
  it("has reported the input by then, from the first usage event", async () => {
    const reports: (typeof EMPTY_USAGE)[] = [];
    const start = `event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { usage: { input_tokens: 900, output_tokens: 1 } } })}\n\n`;
    const upstream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(start));
        // …and nothing more: the client goes away before the end.
      },
    });
    const reader = upstream
      .pipeThrough(
        usageMeter(async (seen) => {
          reports.push(seen);
        }),
      )
      .getReader();
    await reader.read();
    await reader.cancel("the CLI went away");
    expect(reports).toEqual([{ calls: 1, inputTokens: 900, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 }]);
  });
});

describe("admitCall", () => {
  it(`admits ${MAX_MODEL_CALLS_PER_MINUTE} calls a minute, then says when the next one may go`, () => {
    let recent: number[] = [];
    for (let index = 0; index < MAX_MODEL_CALLS_PER_MINUTE; index++) {
      const decision = admitCall(recent, 1_000 + index);
      expect(decision.admitted).toBe(true);
      recent = decision.recent;
    }
    const refused = admitCall(recent, 2_000);
    expect(refused).toMatchObject({ admitted: false, retryAfterSeconds: 59 });
    expect(admitCall(recent, 61_000).admitted).toBe(true);
  });
});

describe("usageMeter", () => {
  async function metered(chunks: string[]): Promise<{ passed: string; usage: typeof EMPTY_USAGE }> {
    let usage = EMPTY_USAGE;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
        controller.close();
      },
    }).pipeThrough(
      // Reports are deltas (the input as soon as message_start gives it, the rest at the end): summed here.
      usageMeter(async (seen) => {
        usage = {
          calls: usage.calls + seen.calls,
          inputTokens: usage.inputTokens + seen.inputTokens,
          outputTokens: usage.outputTokens + seen.outputTokens,
          cacheReadTokens: usage.cacheReadTokens + seen.cacheReadTokens,
          cacheWriteTokens: usage.cacheWriteTokens + seen.cacheWriteTokens,
        };
      }),
    );
    const passed = await new Response(stream).text();
    return { passed, usage };
  }

  it("passes a stream through unchanged and reads its usage, even split mid-line", async () => {
    const start = `event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { usage: { input_tokens: 20, cache_read_input_tokens: 5, output_tokens: 1 } } })}\n\n`;
    const delta = `event: message_delta\ndata: ${JSON.stringify({ type: "message_delta", usage: { output_tokens: 42 } })}\n\n`;
    const whole = start + delta;
    const { passed, usage } = await metered([whole.slice(0, 37), whole.slice(37, 150), whole.slice(150)]);
    expect(passed).toBe(whole);
    expect(usage).toEqual({ calls: 1, inputTokens: 20, outputTokens: 42, cacheReadTokens: 5, cacheWriteTokens: 0 });
  });

  it("reads a plain JSON answer's usage", async () => {
    const { usage } = await metered([JSON.stringify({ usage: { input_tokens: 7, output_tokens: 3 } })]);
    expect(usage).toMatchObject({ calls: 1, inputTokens: 7, outputTokens: 3 });
  });
});

describe("OpenRuns", () => {
  it("opens, admits, records and closes a run; a closed one is refused; the oldest go past eight", async () => {
    const runs = new Map<string, OpenRun>();
    let now = 0;
    const ledger = new OpenRuns(
      {
        get: async (key) => runs.get(key),
        put: async (key, run) => void runs.set(key, run),
        delete: async (keys) => {
          for (const key of keys) runs.delete(key);
        },
        all: async () => new Map(runs),
      },
      () => now,
    );
    await ledger.open("a", "claude-pinned");
    expect(await ledger.admit("a")).toEqual({ kind: "admitted", model: "claude-pinned" });
    await ledger.record("a", { ...EMPTY_USAGE, calls: 1, outputTokens: 9 });
    await ledger.record("a", { ...EMPTY_USAGE, calls: 1, outputTokens: 1 });
    expect(await ledger.close("a")).toMatchObject({ usage: { calls: 2, outputTokens: 10 }, overBudget: false });
    expect(await ledger.admit("a")).toEqual({ kind: "closed" });
    for (let index = 0; index < 9; index++) {
      now = index;
      await ledger.open(`run-${index}`, "m");
    }
    expect(runs.size).toBe(8);
    expect(runs.has("run-0")).toBe(false);
  });
});

describe("largerUsage", () => {
  it("keeps the runner's report unless the proxy measured more, per field", () => {
    const reported = {
      type: "usage" as const,
      inputTokens: 100,
      outputTokens: 10,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    };
    expect(largerUsage(reported, undefined)).toBe(reported);
    expect(largerUsage(reported, { ...EMPTY_USAGE })).toBe(reported);
    expect(
      largerUsage(reported, { calls: 3, inputTokens: 50, outputTokens: 500, cacheReadTokens: 60, cacheWriteTokens: 0 }),
    ).toEqual({ type: "usage", inputTokens: 110, outputTokens: 500, cacheReadTokens: 60, cacheWriteTokens: 0 });
    expect(largerUsage(undefined, { ...EMPTY_USAGE, calls: 1, outputTokens: 4 })).toMatchObject({ outputTokens: 4 });
  });
});

describe("a run's allowance", () => {
  it("refuses the calls after the chat's budget is spent, and says so when the run closes", async () => {
    const runs = new Map<string, OpenRun>();
    const ledger = new OpenRuns({
      get: async (key) => runs.get(key),
      put: async (key, run) => void runs.set(key, run),
      delete: async (keys) => {
        for (const key of keys) runs.delete(key);
      },
      all: async () => new Map(runs),
    });
    await ledger.open("run", "claude-x", { maxTokens: 1_000 });
    expect(await ledger.admit("run")).toMatchObject({ kind: "admitted" });
    await ledger.record("run", {
      calls: 1,
      inputTokens: 900,
      outputTokens: 150,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect(await ledger.admit("run")).toEqual({ kind: "over_budget" });
    expect(await ledger.close("run")).toMatchObject({ overBudget: true, usage: { inputTokens: 900 } });

    await ledger.open("priced", "claude-x", { maxCostUsd: 0.01, price: { input: 3, output: 15 } });
    await ledger.record("priced", {
      calls: 1,
      inputTokens: 3_000,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect(await ledger.admit("priced")).toMatchObject({ kind: "admitted" });
    await ledger.record("priced", {
      calls: 1,
      inputTokens: 0,
      outputTokens: 100,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
    expect(await ledger.admit("priced")).toEqual({ kind: "over_budget" });
  });
});
