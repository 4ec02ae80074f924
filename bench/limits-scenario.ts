import { mkdirSync, writeFileSync } from "node:fs";
import { PLAN_LIMITS, type Plan } from "../src/config/plan-limits.ts";
import { openaiCompletion } from "../tests/fakes/bodies.ts";
import { FAKE_BRAVE_KEY } from "../tests/fakes/search-apis.ts";
import type { Fakes } from "../tests/fakes/server.ts";
import { type Bot, startBot } from "./bot.ts";
import { type Profiler, profilerOn } from "./cpu.ts";
import { connectInspector, type Inspector } from "./inspector.ts";
import { cpuByInvocation, wallToMonotonicMicros } from "./invocation-cpu.ts";
import { RestWatcher, readInvocations } from "./tally.ts";
import {
  EXTERNAL_KINDS,
  type ExternalKind,
  type InvocationTally,
  SERVICE_KINDS,
  type ServiceKind,
} from "./tally-snapshot.ts";
import {
  freshMarker,
  groupUpdate,
  newChats,
  photoUpdate,
  post,
  roundTrips,
  script,
  toolCall,
  update,
  Watcher,
} from "./traffic.ts";

/**
 * Per-invocation limits: the bot under `wrangler dev` with the counting wrapper (bench/workerd/), which counts each
 * invocation's subrequests (outbound fetches by destination, binding calls by service) as the platform attributes
 * them, while the isolate's CPU is sampled and each sample given to the invocation running at its time (see
 * invocation-cpu.ts). Each case runs one chat at a time, so that invocations of different chats do not overlap; the
 * figure is the case's worst invocation, by subrequests and by CPU, against the Free and Paid plans' limits.
 */

const COUNTING_ENTRY = "bench/workerd/counting-entry.ts";
const INSPECTOR_PORT = 9342;
/** Telegram's bot in the fakes (a group message is for the bot when it mentions it). */
const BOT_USERNAME = "testbot";

/** The worst invocation of a case by one measure. */
export interface WorstInvocation {
  kind: string;
  /** The median CPU of the case's invocations of this kind (the worst one is often a garbage collection). */
  kindCpuP50Ms: number;
  party: string;
  external: Record<ExternalKind, number>;
  services: Record<ServiceKind, number>;
  externalTotal: number;
  servicesTotal: number;
  cpuMs: number;
}

interface LimitsCase {
  name: string;
  what: string;
  invocations: number;
  bySubrequests: WorstInvocation;
  byCpu: WorstInvocation;
  /** Checks the case makes of what people see (the answer whole and once). */
  answered: boolean;
}

export interface LimitsReport {
  /** The deployment's WORKERS_PLAN for these cases (what the bot holds itself to). */
  plan: Plan;
  cases: LimitsCase[];
  /** Subrequests the wrapper could not give to an invocation (0 unless it has a gap). */
  unattributed: number;
  /** Milliseconds between the profile's start and the benchmark's monotonic clock at its start (≈ 0: clocks agree). */
  clockSkewMs: number;
  /** Running samples outside every invocation's window, over all cases. */
  outsideMs: number;
}

interface Context {
  bot: Bot;
  fakes: Fakes;
  inspector: Inspector;
  profiler: Profiler;
  watcher: Watcher;
  rest: RestWatcher;
  quick: boolean;
  plan: Plan;
  log: (line: string) => void;
  /** Set by each case's profile. */
  skew: number[];
  outside: number;
  lastId: number;
}

export async function limitsScenario(
  fakes: Fakes,
  options: { quick: boolean; plan: Plan; log: (line: string) => void },
): Promise<LimitsReport> {
  fakes.options.modelDelayMs = 0;
  const webHost = new URL(fakes.url).host;
  const bot = await startBot(fakes.url, {
    inspectorPort: INSPECTOR_PORT,
    entry: COUNTING_ENTRY,
    minify: false,
    vars: {
      USAGE_FLUSH_SECONDS: "1",
      // web_fetch reads the fakes' pages (on loopback, which it refuses otherwise); web_search asks the fake Brave API.
      WEB_FETCH_PRIVATE_HOSTS: webHost,
      BRAVE_SEARCH_API_KEY: FAKE_BRAVE_KEY,
      BRAVE_SEARCH_BASE_URL: `${fakes.url}/search/brave`,
      WORKERS_PLAN: options.plan,
      // The photo goes to the model as an image (read back from R2).
      VISION_MODELS: "gpt-bench",
    },
  });
  const inspector = await connectInspector(INSPECTOR_PORT);
  const profiler = await profilerOn(inspector);
  const context: Context = {
    bot,
    fakes,
    inspector,
    profiler,
    watcher: new Watcher(fakes),
    rest: new RestWatcher(inspector),
    quick: options.quick,
    plan: options.plan,
    log: options.log,
    skew: [],
    outside: 0,
    lastId: 0,
  };
  try {
    const cases: LimitsCase[] = [];
    cases.push(await newChatTurn(context));
    cases.push(await plainTurns(context));
    cases.push(await toolTurns(context));
    cases.push(await conversation(context));
    cases.push(await photoTurns(context));
    cases.push(await burst(context));
    cases.push(await summaryPass(context));
    cases.push(await longTurn(context, "private"));
    cases.push(await longTurn(context, "group"));
    const { unattributed } = await readInvocations(inspector, context.lastId);
    const skews = [...context.skew].sort((a, b) => a - b);
    return {
      plan: options.plan,
      cases,
      unattributed,
      clockSkewMs: skews[Math.floor(skews.length / 2)] ?? Number.NaN,
      outsideMs: context.outside,
    };
  } finally {
    profiler.close();
    inspector.close();
    await bot.stop();
  }
}

/** A chat's first message: its object is created and its SQLite migrated in the invocation that answers it. */
async function newChatTurn(context: Context): Promise<LimitsCase> {
  const chats = newChats(context.quick ? 3 : 6);
  return measure(
    context,
    "plain turn, new chat",
    "a chat's first message (its object created), instant model",
    chats,
    async () => {
      for (const chatId of chats) {
        await roundTrips(context.bot, context.watcher, [chatId], 1);
        await context.rest.until(chatId);
      }
      return true;
    },
  );
}

async function plainTurns(context: Context): Promise<LimitsCase> {
  const [chatId] = newChats(1) as [number];
  await warm(context, chatId);
  // Unmeasured turns first: V8 optimizes the hot code over the first hundred or so (see the cpu scenario).
  await roundTrips(context.bot, context.watcher, [chatId], context.quick ? 40 : 150);
  await context.rest.until(chatId);
  const count = context.quick ? 10 : 20;
  return measure(
    context,
    "plain turn",
    "a text message and its answer on a warm chat, instant model",
    [chatId],
    async () => {
      for (let index = 0; index < count; index++) {
        await roundTrips(context.bot, context.watcher, [chatId], 1);
        await context.rest.until(chatId);
      }
      return true;
    },
  );
}

async function toolTurns(context: Context): Promise<LimitsCase> {
  const [chatId] = newChats(1) as [number];
  await warm(context, chatId);
  const count = context.quick ? 3 : 5;
  return measure(
    context,
    "tool turn",
    "remember, recall, list_tasks and the answer (four model calls)",
    [chatId],
    async () => {
      for (let index = 0; index < count; index++) {
        const marker = freshMarker(chatId);
        await script(context.fakes, [
          { ...toolCall("remember", { fact: `bench fact ${marker}` }), when: [marker] },
          { ...toolCall("recall", { query: "bench fact" }), when: [marker] },
          { ...toolCall("list_tasks", {}), when: [marker] },
          { body: openaiCompletion(`done ${marker}`), when: [marker] },
        ]);
        await post(context.bot, update(chatId, `tools ${marker}`));
        await answered(context, chatId, marker);
        await context.rest.until(chatId);
      }
      return true;
    },
  );
}

/**
 * A conversation in one drain: each message is sent as soon as the previous answer is there, so it arrives while the
 * chat's drain does its upkeep and is taken by that same drain (and invocation).
 */
async function conversation(context: Context): Promise<LimitsCase> {
  const [chatId] = newChats(1) as [number];
  await warm(context, chatId);
  const count = context.quick ? 6 : 12;
  return measure(
    context,
    "conversation",
    `${count} messages, each sent the moment the answer before it arrives`,
    [chatId],
    async () => {
      await roundTrips(context.bot, context.watcher, [chatId], count);
      await context.rest.until(chatId);
      return true;
    },
  );
}

/** A photo with a caption: the file fetched from Telegram, stored in R2, and shown to the model. */
async function photoTurns(context: Context): Promise<LimitsCase> {
  const [chatId] = newChats(1) as [number];
  await warm(context, chatId);
  const count = context.quick ? 2 : 5;
  return measure(
    context,
    "photo turn",
    "a photo with a caption (getFile, the download, R2, the model)",
    [chatId],
    async () => {
      for (let index = 0; index < count; index++) {
        const marker = freshMarker(chatId);
        await post(context.bot, photoUpdate(chatId, marker));
        await answered(context, chatId, marker);
        await context.rest.until(chatId);
      }
      return true;
    },
  );
}

/** Three messages typed 100 ms apart while a 1-second model answers: they join one turn, whose model call starts over. */
async function burst(context: Context): Promise<LimitsCase> {
  const [chatId] = newChats(1) as [number];
  await warm(context, chatId);
  return measure(context, "burst", "three messages 100 ms apart, 1-second model: one answer", [chatId], async () => {
    context.fakes.options.modelDelayMs = 1000;
    try {
      const markers = [freshMarker(chatId), freshMarker(chatId), freshMarker(chatId)];
      for (const marker of markers) {
        await post(context.bot, update(chatId, marker));
        await sleep(100);
      }
      await answered(context, chatId, markers.at(-1)!);
      await context.rest.until(chatId);
      return context.watcher.markers(chatId).slice(-3).join() === markers.join();
    } finally {
      context.fakes.options.modelDelayMs = 0;
    }
  });
}

/**
 * The message that takes a chat's history past HISTORY_LIMIT (40): its answer, then a summary pass (a model call and
 * the summary's writes) in the same drain, so in the same invocation.
 */
async function summaryPass(context: Context): Promise<LimitsCase> {
  const [chatId] = newChats(1) as [number];
  await roundTrips(context.bot, context.watcher, [chatId], 19);
  await context.rest.until(chatId);
  return measure(
    context,
    "summary pass",
    "a turn and the summary pass after it (history past 40 messages)",
    [chatId],
    async () => {
      for (let index = 0; index < 2; index++) {
        await roundTrips(context.bot, context.watcher, [chatId], 1);
        await context.rest.until(chatId);
      }
      return true;
    },
  );
}

/**
 * The worst realistic turn: a question answered after five tool rounds (a search, three pages fetched, remember,
 * recall, list_tasks), each round's call streaming a sentence first, then an answer streamed over most of a minute,
 * in a private chat (drafts every 400 ms, typing, a 👀, the stop control) or a group (one message edited every 3 s,
 * the Stop button, a status line where rich messages are off).
 */
async function longTurn(context: Context, where: "private" | "group"): Promise<LimitsCase> {
  const seconds = context.quick ? 20 : 60;
  const chatId = where === "private" ? newChats(1)[0]! : -newChats(1)[0]!;
  const member = Math.abs(chatId) + 7;
  const send = (text: string) =>
    post(
      context.bot,
      where === "private" ? update(chatId, text) : groupUpdate(chatId, member, `@${BOT_USERNAME} ${text}`),
    );
  // The chat's object and its first turn, before the measured one.
  const warmMarker = freshMarker(chatId);
  await script(context.fakes, [{ body: openaiCompletion(`done ${warmMarker}`), when: [warmMarker] }]);
  await send(`hello ${warmMarker}`);
  await context.rest.until(chatId);
  const marker = freshMarker(chatId);
  const final = longAnswer(marker, seconds);
  const pages = ["a", "b", "c"].map((name) => `/web/limits-${name}-${marker}`);
  await script(
    context.fakes,
    pages.map((path) => ({
      path,
      headers: { "content-type": "text/html; charset=utf-8" },
      text: `<html><head><title>${path}</title></head><body><p>${"Some facts about the question. ".repeat(40)}</p></body></html>`,
    })),
    "web",
  );
  // Each tool round streams a sentence over about a twentieth of the time, then asks for its tools.
  const roundMs = (seconds * 1000) / 20;
  const round = (text: string, calls: { name: string; arguments: unknown }[]) => ({
    body: openaiCompletion(text, { toolCalls: calls }),
    stream: { pieces: 8, delayMs: roundMs / 8 },
    when: [marker],
  });
  const url = (path: string) => `${context.fakes.url}${path}`;
  await script(context.fakes, [
    round("Let me search for that first.", [{ name: "web_search", arguments: { query: `limits ${marker}` } }]),
    round("Two pages look useful; reading both.", [
      { name: "web_fetch", arguments: { url: url(pages[0]!) } },
      { name: "web_fetch", arguments: { url: url(pages[1]!) } },
    ]),
    round("Noting what matters.", [{ name: "remember", arguments: { fact: `limits fact ${marker}` } }]),
    round("One more source.", [{ name: "web_fetch", arguments: { url: url(pages[2]!) } }]),
    round("Checking what I knew before.", [
      { name: "recall", arguments: { query: "limits fact" } },
      { name: "list_tasks", arguments: {} },
    ]),
    // The answer streams over three quarters of the time.
    {
      body: openaiCompletion(final.text),
      stream: { pieces: final.pieces, delayMs: (seconds * 750) / final.pieces },
      when: [marker],
    },
  ]);
  return measure(
    context,
    `long streamed turn with tools, ${where}`,
    `five tool rounds (web_search, three web_fetch, remember, recall, list_tasks), then an answer streamed over ${Math.round(seconds * 0.75)} s; ${seconds} s in all`,
    [chatId],
    async () => {
      await send(`research ${marker}`);
      // Watched here, in the fake Telegram, rather than by polling the runtime for a minute (its answers to the polls
      // would be part of the CPU sampled).
      const deadline = Date.now() + (seconds + 60) * 1000;
      while (!deliveredOnce(context.fakes, chatId, final.last) && Date.now() < deadline) await sleep(250);
      await context.rest.until(chatId);
      return deliveredOnce(context.fakes, chatId, final.last);
    },
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A long Markdown answer (about 60 characters a piece), starting with its marker, ending with a sentence of its own. */
function longAnswer(marker: string, seconds: number): { text: string; pieces: number; last: string } {
  const pieces = Math.round(seconds * 2.5);
  const last = `That is all for ${marker}.`;
  const paragraphs = Array.from(
    { length: Math.ceil(pieces / 4) },
    (_, index) => `Point ${index + 1}: a sentence of the answer that says something about the question, in some words.`,
  );
  return { text: `done ${marker}\n\n${paragraphs.join("\n\n")}\n\n${last}`, pieces, last };
}

/** The chat's messages hold the answer's last sentence exactly once (no second copy, nothing cut off). */
function deliveredOnce(fakes: Fakes, chatId: number, last: string): boolean {
  const holding = fakes.telegram.store.messages(chatId).filter((message) => {
    const { content } = message;
    const text = content.kind === "rich" ? content.rich.text : content.kind === "text" ? content.text : content.caption;
    return text.includes(last);
  });
  return holding.length === 1;
}

async function warm(context: Context, chatId: number): Promise<void> {
  await roundTrips(context.bot, context.watcher, [chatId], 1);
  await context.rest.until(chatId);
}

function answered(context: Context, chatId: number, marker: string): Promise<void> {
  const { watcher } = context;
  return watcher.until(() => watcher.answeredAt(chatId, marker) !== undefined, 60_000, `answer to ${marker}`);
}

/**
 * Runs a case with the profiler on, then reads the invocations it made (the Worker's and its chats' objects') and
 * gives each its CPU.
 */
async function measure(
  context: Context,
  name: string,
  what: string,
  chats: number[],
  run: () => Promise<boolean>,
): Promise<LimitsCase> {
  context.log(`limits: ${name} (WORKERS_PLAN=${context.plan})`);
  const { inspector, profiler } = context;
  const before = await readInvocations(inspector, context.lastId);
  const firstId = before.invocations.at(-1)?.id ?? context.lastId;
  const offset = wallToMonotonicMicros();
  const startedAt = Number(process.hrtime.bigint() / 1000n);
  await profiler.start();
  const ok = await run();
  const { profile } = await profiler.stop();
  if (profile.startTime !== undefined) context.skew.push((profile.startTime - startedAt) / 1000);
  const { invocations } = await readInvocations(inspector, firstId);
  context.lastId = invocations.at(-1)?.id ?? firstId;
  const names = new Set(chats.map((chatId) => `chat:${chatId}`));
  const mine = invocations.filter(
    (invocation) => invocation.party === "worker" || [...names].some((chat) => invocation.party.endsWith(` ${chat}`)),
  );
  const cpu = cpuByInvocation(profile, invocations, offset);
  context.outside += cpu.outsideMs;
  // For `node bench/hot.ts bench/results/limits-<case>.cpuprofile`, and for reading the invocations of a case again.
  const file = `bench/results/limits-${context.plan}-${name.replace(/[^a-z]+/g, "-")}`;
  mkdirSync("bench/results", { recursive: true });
  writeFileSync(`${file}.cpuprofile`, JSON.stringify(profile));
  writeFileSync(
    `${file}.json`,
    JSON.stringify({
      offset,
      invocations: invocations.map((it) => ({ ...it, cpuMs: cpu.byInvocation.get(it.id) ?? 0 })),
    }),
  );
  const worst = (score: (invocation: InvocationTally) => number) =>
    describe([...mine].sort((a, b) => score(b) - score(a))[0], mine, cpu.byInvocation);
  const subrequests = (invocation: InvocationTally) =>
    totalOf(invocation.external) * 10_000 + totalOf(invocation.services);
  const result = {
    name,
    what,
    invocations: mine.length,
    bySubrequests: worst(subrequests),
    byCpu: worst((invocation) => cpu.byInvocation.get(invocation.id) ?? 0),
    answered: ok,
  };
  context.log(
    `  worst: ${result.bySubrequests.kind} ${result.bySubrequests.externalTotal} external + ${result.bySubrequests.servicesTotal} services; CPU ${result.byCpu.cpuMs.toFixed(1)} ms (${result.byCpu.kind}); answered ${ok ? "whole, once" : "NOT whole once"}`,
  );
  return result;
}

function totalOf(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, count) => sum + count, 0);
}

function describe(
  invocation: InvocationTally | undefined,
  all: InvocationTally[],
  cpu: Map<number, number>,
): WorstInvocation {
  const none = (kinds: readonly string[]) => Object.fromEntries(kinds.map((kind) => [kind, 0]));
  if (!invocation) {
    return {
      kind: "none",
      kindCpuP50Ms: 0,
      party: "",
      external: none(EXTERNAL_KINDS) as Record<ExternalKind, number>,
      services: none(SERVICE_KINDS) as Record<ServiceKind, number>,
      externalTotal: 0,
      servicesTotal: 0,
      cpuMs: 0,
    };
  }
  const classOf = (party: string) => party.split(" ")[0];
  const alike = all
    .filter((other) => classOf(other.party) === classOf(invocation.party) && other.kind === invocation.kind)
    .map((other) => cpu.get(other.id) ?? 0)
    .sort((a, b) => a - b);
  return {
    kindCpuP50Ms: alike[Math.floor(alike.length / 2)] ?? 0,
    kind:
      invocation.party === "worker"
        ? `Worker ${invocation.kind}`
        : `${invocation.party.split(" ")[0]}.${invocation.kind}`,
    party: invocation.party,
    external: invocation.external,
    services: invocation.services,
    externalTotal: totalOf(invocation.external),
    servicesTotal: totalOf(invocation.services),
    cpuMs: cpu.get(invocation.id) ?? 0,
  };
}

/** Whether a worst invocation is within a plan's limits (Free: the two pools apart; Paid: one pool). */
export function within(worst: WorstInvocation, plan: "free" | "paid"): { subrequests: boolean; cpu: boolean } {
  const limits = PLAN_LIMITS[plan];
  return {
    subrequests:
      worst.externalTotal <= limits.external &&
      worst.servicesTotal <= limits.services &&
      worst.externalTotal + worst.servicesTotal <= limits.total,
    cpu: worst.cpuMs <= limits.cpuMs,
  };
}
