import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import type { Fakes } from "../tests/fakes/server.ts";
import { type Bot, newestDevBundle, startBot } from "./bot.ts";
import { connectProfiler, processCpuMs } from "./cpu.ts";
import { startPeerBot } from "./peer-bot.ts";
import { type Summary, summarize } from "./stats.ts";
import { newChats, pool, post, roundTrips, update, Watcher } from "./traffic.ts";

/**
 * `npm run bench -- --peer DIR`: this bot and another Telegram bot's Worker (bench/peer-bot.ts) side by side, both
 * under `wrangler dev --local` at once against the same fakes, each scenario run on one and then the other (the order
 * alternating from scenario to scenario) so that both see the same machine. A chat's messages go as Telegram sends
 * them: the next once the webhook took the previous one (this bot acks at once and answers later; the other answers
 * inside the webhook request, so its next message waits for its answer).
 */

/** This bot's inspector, when its side is profiled (not the main bench's port: both may run). */
const PROFILE_INSPECTOR_PORT = 9341;

interface Measured {
  /** Each message: from its send to the first answer that carries it. */
  reply: Summary;
  /** Each chat: from its last message's send (its delivery to the bot) to the answer that carries it. */
  lastToAnswer: Summary;
  /**
   * Each chat: from the moment the person wrote their last message to the answer that carries it. In a burst the
   * person writes them back to back, all when the chat starts; Telegram delivers each once the bot took the one
   * before, so a bot that answers inside the webhook request gets the next message only after its answer to the last
   * one, and the time the message waited at Telegram meanwhile is part of the person's wait (see BENCHMARKS.md). In a
   * conversation a message is written when the answer before it arrived, and this is the delivery clock.
   */
  lastWrittenToAnswer: Summary;
  answersPerChat: number;
  messages: number;
  modelCalls: number;
  telegramCalls: number;
  /** The runtime's process CPU (workerd, from /proc) over the scenario, per message. */
  cpuMsPerMessage: number;
  /** Every message answered, in order. */
  intact: boolean;
  /** Telegram calls by method, per 100 messages (where the calls went). */
  telegramMethods: Record<string, number>;
}

interface Scenario {
  name: string;
  chats: number;
  perChat: number;
  connections: number;
  modelMs: number;
  /** "burst": back to back; "conversation": the next message once the previous one is answered. */
  shape: "burst" | "conversation";
}

const SCENARIOS: Scenario[] = [
  {
    name: "10 chats × 10 messages back to back, instant model",
    chats: 10,
    perChat: 10,
    connections: 10,
    modelMs: 0,
    shape: "burst",
  },
  {
    name: "200 chats × 2 messages back to back @40, 1 s model",
    chats: 200,
    perChat: 2,
    connections: 40,
    modelMs: 1000,
    shape: "burst",
  },
  {
    name: "100 chats × 20 messages back to back @40, instant model",
    chats: 100,
    perChat: 20,
    connections: 40,
    modelMs: 0,
    shape: "burst",
  },
  {
    name: "40 chats in conversation (3 messages each), 1 s model",
    chats: 40,
    perChat: 3,
    connections: 40,
    modelMs: 1000,
    shape: "conversation",
  },
];

export interface PeerOptions {
  /** The other bot's checkout (its built `dist/index.js`). */
  peerDirectory: string;
  log: (line: string) => void;
  /** Only these scenarios (1-based, as in the table); all when unset. */
  scenarios?: readonly number[];
  /** Only this bot's side (for iterating on one scenario); both when unset. */
  oursOnly?: boolean;
  /**
   * Runs this bot unminified with its inspector open and writes the CPU profile of its side of each scenario to
   * bench/results/peer-<n>.cpuprofile (its bundle to bench/results/run-worker.js, for bench/hot.ts).
   */
  profile?: boolean;
  /** Writes each chat's events (sends, acks, model calls, Bot API calls) to bench/results/peer-trace-<bot>.jsonl. */
  trace?: boolean;
}

/** One event of a traced run: when (ms since the scenario began), which chat, what. */
interface TraceEvent {
  at: number;
  chat: number;
  what: string;
}

/** Records what the fakes receive per chat while a scenario runs (see PeerOptions.trace). */
function traceRequests(fakes: Fakes, events: TraceEvent[], start: number): () => void {
  const before = fakes.onRequest;
  fakes.onRequest = (request) => {
    before?.(request);
    const body = JSON.stringify(request.body ?? "");
    const chat = request.service === "telegram" ? /"chat_id":"?(-?\d+)/.exec(body)?.[1] : /m(\d+)-\d+/.exec(body)?.[1];
    if (chat === undefined) return;
    const markers = request.service === "openai" ? ` ${[...new Set(body.match(/m\d+-\d+/g))].join(",")}` : "";
    events.push({ at: request.at - start, chat: Number(chat), what: `${request.service} ${request.method}${markers}` });
  };
  return () => {
    fakes.onRequest = before;
  };
}

export async function peerComparison(fakes: Fakes, options: PeerOptions): Promise<string> {
  const { peerDirectory, log } = options;
  const watcher = new Watcher(fakes);
  const results: { scenario: Scenario; sides: Record<string, Measured> }[] = [];
  const started: Bot[] = [];
  try {
    const ours = await startBot(
      fakes.url,
      options.profile ? { inspectorPort: PROFILE_INSPECTOR_PORT, minify: false } : {},
    );
    const profiler = options.profile ? await connectProfiler(PROFILE_INSPECTOR_PORT) : undefined;
    started.push(ours);
    const theirs = options.oursOnly ? undefined : await startPeerBot(fakes.url, peerDirectory);
    if (theirs) started.push(theirs);
    const bots: Partial<Record<"this bot" | "the other bot", Bot>> = { "this bot": ours, "the other bot": theirs };
    fakes.options.modelDelayMs = 0;
    for (const [name, bot] of Object.entries(bots)) {
      if (!bot) continue;
      watcher.editsAnswer = name === "the other bot";
      await roundTrips(bot, watcher, newChats(3), 6);
    }
    for (const [index, scenario] of SCENARIOS.entries()) {
      if (options.scenarios && !options.scenarios.includes(index + 1)) continue;
      const order =
        index % 2 === 0 ? (["this bot", "the other bot"] as const) : (["the other bot", "this bot"] as const);
      const sides: Record<string, Measured> = {};
      for (const name of order) {
        const bot = bots[name];
        if (!bot) continue;
        log(`${scenario.name}: ${name}`);
        watcher.editsAnswer = name === "the other bot";
        const events: TraceEvent[] = [];
        const start = Date.now();
        const untrace = options.trace ? traceRequests(fakes, events, start) : () => {};
        try {
          const profiling = name === "this bot" ? profiler : undefined;
          await profiling?.start();
          sides[name] = await run(bot, fakes, watcher, scenario, log, (chat, what) =>
            events.push({ at: Date.now() - start, chat, what }),
          );
          const profiled = await profiling?.stop();
          if (profiled) {
            writeFileSync(`bench/results/peer-${index + 1}.cpuprofile`, JSON.stringify(profiled.profile));
            log(
              `  sampled CPU of this bot's isolate: ${(profiled.cpuMs / sides[name].messages).toFixed(2)} ms per message`,
            );
          }
        } finally {
          untrace();
        }
        if (options.trace) {
          const file = `bench/results/peer-trace-${name.replaceAll(" ", "-")}-${index + 1}.jsonl`;
          writeFileSync(file, `${events.map((event) => JSON.stringify(event)).join("\n")}\n`);
        }
      }
      results.push({ scenario, sides });
    }
    profiler?.close();
    const bundle = options.profile ? newestDevBundle() : undefined;
    if (bundle) copyFileSync(bundle, "bench/results/run-worker.js");
  } finally {
    for (const bot of started) await bot.stop();
  }
  mkdirSync("bench/results", { recursive: true });
  writeFileSync(
    `bench/results/peer-${new Date().toISOString().slice(0, 10)}.json`,
    `${JSON.stringify(results, null, 2)}\n`,
  );
  return table(results);
}

async function run(
  bot: Bot,
  fakes: Fakes,
  watcher: Watcher,
  scenario: Scenario,
  log: (line: string) => void,
  note: (chat: number, what: string) => void,
): Promise<Measured> {
  fakes.options.modelDelayMs = scenario.modelMs;
  const chats = newChats(scenario.chats);
  const sentAt = new Map<string, number>();
  const writtenAt = new Map<string, number>();
  const sent = new Map<number, string[]>(chats.map((chatId) => [chatId, []]));
  let modelCalls = 0;
  watcher.onModelCall = () => {
    modelCalls++;
  };
  const cpuBefore = processCpuMs(bot.processGroup) ?? Number.NaN;
  const scenarioStart = Date.now();
  await pool(chats, scenario.connections, async (chatId) => {
    const started = Date.now();
    for (let sequence = 0; sequence < scenario.perChat; sequence++) {
      const marker = `m${chatId}-${sequence}`;
      sent.get(chatId)!.push(marker);
      sentAt.set(marker, Date.now());
      writtenAt.set(marker, scenario.shape === "burst" ? started : Date.now());
      note(chatId, `send ${marker}`);
      await post(bot, update(chatId, marker));
      note(chatId, `acked ${marker}`);
      if (scenario.shape === "conversation") {
        await watcher.until(() => watcher.answeredAt(chatId, marker) !== undefined, 60_000, `answer to ${marker}`);
      }
    }
  });
  const all = [...sentAt.keys()];
  const chatOf = (marker: string) => Number(/^m(\d+)-/.exec(marker)![1]);
  await watcher.until(
    () => all.every((marker) => watcher.answeredAt(chatOf(marker), marker) !== undefined),
    180_000,
    "every answer",
  );
  // Whatever the bots still do for these chats (a late edit, upkeep) is counted too.
  await new Promise((done) => setTimeout(done, 1500));
  // And what a bot put off for them (this bot's D1 flush): theirs, not the next scenario's, where it used to land.
  if (bot.deferredWorkMs) await settled(bot, scenarioStart + bot.deferredWorkMs + 1000);
  const cpuAfter = processCpuMs(bot.processGroup) ?? Number.NaN;
  watcher.onModelCall = undefined;
  const latency = (marker: string, from = sentAt) => watcher.answeredAt(chatOf(marker), marker)! - from.get(marker)!;
  const answers = chats.reduce((sum, chatId) => sum + (watcher.answers.get(chatId)?.length ?? 0), 0);
  const measured: Measured = {
    reply: summarize(all.map((marker) => latency(marker))),
    lastToAnswer: summarize(chats.map((chatId) => latency(sent.get(chatId)!.at(-1)!))),
    lastWrittenToAnswer: summarize(chats.map((chatId) => latency(sent.get(chatId)!.at(-1)!, writtenAt))),
    answersPerChat: answers / chats.length,
    messages: all.length,
    modelCalls,
    telegramCalls: chats.reduce((sum, chatId) => sum + (watcher.calls.get(chatId) ?? 0), 0),
    cpuMsPerMessage: (cpuAfter - cpuBefore) / all.length,
    telegramMethods: methodsPer100(chats, watcher, all.length),
    intact: chats.every((chatId) => watcher.markers(chatId).join(",") === sent.get(chatId)!.join(",")),
  };
  log(`  ${JSON.stringify({ ...measured, reply: undefined })}`);
  return measured;
}

function methodsPer100(chats: readonly number[], watcher: Watcher, messages: number): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const chatId of chats) {
    for (const [method, count] of watcher.methods.get(chatId) ?? []) totals[method] = (totals[method] ?? 0) + count;
  }
  return Object.fromEntries(Object.entries(totals).map(([method, count]) => [method, (count * 100) / messages]));
}

function table(results: { scenario: Scenario; sides: Record<string, Measured> }[]): string {
  const lines = [
    "| scenario | bot | reply p50 / p95 ms | last message delivered → answer p50 / p95 ms | last message written → answer p50 / p95 ms | answers per chat | model / Telegram calls per 100 messages | runtime CPU ms per message | all answered, in order |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const { scenario, sides } of results) {
    for (const [name, side] of Object.entries(sides)) {
      const per100 = (count: number) => ((count * 100) / side.messages).toFixed(0);
      lines.push(
        `| ${scenario.name} | ${name} | ${side.reply.p50.toFixed(0)} / ${side.reply.p95.toFixed(0)} | ${side.lastToAnswer.p50.toFixed(0)} / ${side.lastToAnswer.p95.toFixed(0)} | ${side.lastWrittenToAnswer.p50.toFixed(0)} / ${side.lastWrittenToAnswer.p95.toFixed(0)} | ${side.answersPerChat.toFixed(2)} | ${per100(side.modelCalls)} / ${per100(side.telegramCalls)} | ${side.cpuMsPerMessage.toFixed(1)} | ${side.intact ? "yes" : "**no**"} |`,
      );
    }
  }
  return lines.join("\n");
}

/** Waits until `until`, then until the bot's runtime is idle (under 10 ms of CPU in half a second; 15 s at most). */
async function settled(bot: Bot, until: number): Promise<void> {
  await new Promise((done) => setTimeout(done, Math.max(0, until - Date.now())));
  const deadline = Date.now() + 15_000;
  let before = processCpuMs(bot.processGroup) ?? 0;
  while (Date.now() < deadline) {
    await new Promise((done) => setTimeout(done, 500));
    const now = processCpuMs(bot.processGroup) ?? 0;
    if (now - before < 10) return;
    before = now;
  }
}
