import { mkdirSync, writeFileSync } from "node:fs";
import { openaiCompletion } from "../tests/fakes/bodies.ts";
import type { Fakes } from "../tests/fakes/server.ts";
import { type Bot, startBot } from "./bot.ts";
import { BENCH_MODEL, modelCost, platformCost, scaleUsage, subtractUsage, type Usage } from "./cost.ts";
import { cpuMsOf, type Profiler, profilerOn } from "./cpu.ts";
import { connectInspector, type Inspector } from "./inspector.ts";
import { chatObject, countsOf, RestWatcher, readTally, since, sumParties, totalOf } from "./tally.ts";
import type { PartyTally, StatementCounts } from "./tally-snapshot.ts";
import { freshMarker, newChats, photoUpdate, post, roundTrips, script, toolCall, update, Watcher } from "./traffic.ts";

/**
 * What a message costs: the bot under `wrangler dev` with the counting wrapper (bench/workerd/counting-entry.ts)
 * answers plain, tool and photo messages and makes summary passes, and every billable operation is counted from
 * inside the runtime; bench/cost.ts prices them. Each chat sends its next message only after the previous one's work
 * is done, usage flush included (USAGE_FLUSH_SECONDS=1: one flush per message, as for a person whose messages are
 * more than the default 30 s apart).
 */

const COUNTING_ENTRY = "bench/workerd/counting-entry.ts";
const INSPECTOR_PORT = 9341;
/** Characters per token, for the size of what the model was sent (a rule of thumb for English and JSON). */
const CHARS_PER_TOKEN = 4;
/**
 * Output tokens are not measured (the fake model answers in a few words): a text answer is taken to be 250 tokens, a
 * tool call 30, a summary 600.
 */
const OUTPUT_TOKENS = { answer: 250, toolCall: 30, summary: 600 } as const;

type CostKind = "plain turn" | "tool turn" | "photo turn" | "summary pass";

interface CostFigures {
  kind: CostKind;
  what: string;
  /** Messages (passes, for the summary) the figures are averaged over. */
  samples: number;
  /** Per message (per pass). */
  usage: Usage;
  telegramCalls: number;
  modelCalls: number;
  modelInputTokens: number;
  modelOutputTokens: number;
  platformPer1000: number;
  modelPer1000: number;
  /** The platform's largest items per 1,000 messages. */
  largest: { item: string; quantity: number; dollars: number }[];
}

interface StatementLine extends StatementCounts {
  statement: string;
}

/** The statements of one plain turn on a warm chat, per turn: the webhook and the turn's alarm, then its usage flush. */
interface PlainTurnStatements {
  turn: StatementLine[];
  flush: StatementLine[];
}

export interface CostReport {
  kinds: CostFigures[];
  plainTurnStatements: PlainTurnStatements;
}

interface ModelCall {
  at: number;
  chars: number;
  summary: boolean;
  text: string;
}

interface Context {
  bot: Bot;
  fakes: Fakes;
  inspector: Inspector;
  profiler: Profiler;
  watcher: Watcher;
  rest: RestWatcher;
  calls: ModelCall[];
  log: (line: string) => void;
}

export async function costScenario(
  fakes: Fakes,
  options: { quick: boolean; log: (line: string) => void },
): Promise<CostReport> {
  fakes.options.modelDelayMs = 0;
  const bot = await startBot(fakes.url, {
    inspectorPort: INSPECTOR_PORT,
    entry: COUNTING_ENTRY,
    // Unminified, so that the profiles it writes name our functions.
    minify: false,
    vars: {
      USAGE_FLUSH_SECONDS: "1",
      // The photo goes to the model as an image.
      VISION_MODELS: BENCH_MODEL.name,
      MODEL_PRICES: JSON.stringify({ [BENCH_MODEL.name]: BENCH_MODEL.price }),
    },
  });
  const inspector = await connectInspector(INSPECTOR_PORT);
  const profiler = await profilerOn(inspector);
  const watcher = new Watcher(fakes);
  const calls: ModelCall[] = [];
  watcher.onModelCall = (at, body) => {
    const text = JSON.stringify(body);
    calls.push({ at, chars: text.length, summary: text.includes("Write the updated summary."), text });
  };
  const context: Context = {
    bot,
    fakes,
    inspector,
    profiler,
    watcher,
    rest: new RestWatcher(inspector),
    calls,
    log: options.log,
  };
  try {
    const size = options.quick ? { chats: 6, each: 2 } : { chats: 16, each: 3 };
    const plain = await measure(context, "plain turn", size, (chatId) => plainMessage(context, chatId));
    const tools = await measure(context, "tool turn", { chats: size.chats / 2, each: size.each - 1 }, (chatId) =>
      toolMessage(context, chatId),
    );
    const photo = await measure(context, "photo turn", { chats: size.chats / 2, each: size.each - 1 }, (chatId) =>
      photoMessage(context, chatId),
    );
    const summary = await summaryPasses(context, options.quick ? 2 : 5);
    return {
      kinds: [plain.figures, tools.figures, photo.figures, summary],
      plainTurnStatements: plain.statements,
    };
  } finally {
    watcher.onModelCall = undefined;
    profiler.close();
    inspector.close();
    await bot.stop();
  }
}

const WHAT: Record<CostKind, string> = {
  "plain turn": "a text message and its answer (one model call)",
  "tool turn": "three tool calls (remember, recall, list_tasks) and the answer: four model calls",
  "photo turn": "a photo with a caption: downloaded, stored in R2, shown to the model",
  "summary pass": "folding the older half of a 40-message history into the summary (one model call)",
};

async function plainMessage(context: Context, chatId: number): Promise<void> {
  await roundTrips(context.bot, context.watcher, [chatId], 1);
}

async function toolMessage(context: Context, chatId: number): Promise<void> {
  const marker = freshMarker(chatId);
  await script(context.fakes, [
    { ...toolCall("remember", { fact: `bench fact ${marker}` }), when: [marker] },
    { ...toolCall("recall", { query: "bench fact" }), when: [marker] },
    { ...toolCall("list_tasks", {}), when: [marker] },
    { body: openaiCompletion(`done ${marker}`), when: [marker] },
  ]);
  await post(context.bot, update(chatId, `tools ${marker}`));
  await answered(context, chatId, marker);
}

async function photoMessage(context: Context, chatId: number): Promise<void> {
  const marker = freshMarker(chatId);
  await post(context.bot, photoUpdate(chatId, marker));
  await answered(context, chatId, marker);
}

function answered(context: Context, chatId: number, marker: string): Promise<void> {
  const { watcher } = context;
  return watcher.until(() => watcher.answeredAt(chatId, marker) !== undefined, 30_000, `answer to ${marker}`);
}

function telegramCalls(fakes: Fakes): number {
  return [...fakes.counters].reduce((sum, [key, count]) => sum + (key.startsWith("telegram:") ? count : 0), 0);
}

/**
 * `size.chats` warm chats each send `size.each` messages, one at a time, each after the previous one's work is done
 * (answer, usage flush); the counts, CPU, Telegram and model calls over all of them, per message.
 */
async function measure(
  context: Context,
  kind: Exclude<CostKind, "summary pass">,
  size: { chats: number; each: number },
  send: (chatId: number) => Promise<void>,
): Promise<{ figures: CostFigures; statements: PlainTurnStatements }> {
  const { inspector, profiler, rest, fakes, calls } = context;
  context.log(`cost: ${kind}, ${size.chats} chats × ${size.each}`);
  const chats = newChats(size.chats);
  // Each chat's first message creates its object; what a message costs is measured from the next one on.
  await Promise.all(chats.map((chatId) => plainMessage(context, chatId)));
  await rest.all(chats);
  const before = await readTally(inspector);
  const telegramBefore = telegramCalls(fakes);
  const callsBefore = calls.length;
  // Each chat's object between its turn and its usage flush: the alarm that answers is over, the flush's is not due.
  const turns: PartyTally[] = [];
  await profiler.start();
  await Promise.all(
    chats.map(async (chatId) => {
      let last = chatObject(before, chatId);
      for (let index = 0; index < size.each; index++) {
        await send(chatId);
        await rest.until(chatId, 0);
        const turned = chatObject(await readTally(inspector, [chatId]), chatId);
        turns.push(since(turned, last));
        await rest.until(chatId);
        last = chatObject(await readTally(inspector, [chatId]), chatId);
      }
    }),
  );
  const { profile } = await profiler.stop();
  const cpuMs = cpuMsOf(profile, isInstrumentation);
  // For `node bench/hot.ts bench/results/cost-plain-turn.cpuprofile` (the counting wrapper's own work is in it).
  mkdirSync("bench/results", { recursive: true });
  writeFileSync(`bench/results/cost-${kind.replace(" ", "-")}.cpuprofile`, JSON.stringify(profile));
  const after = await readTally(inspector);
  const messages = size.chats * size.each;
  const made = calls.slice(callsBefore);
  const perCall = kind === "tool turn" ? { answers: 1, toolCalls: 3 } : { answers: 1, toolCalls: 0 };
  // What one such message runs, statement by statement: the Worker and the turn, then the usage flush after it.
  const worker = since(after.worker, before.worker);
  const objects = sumParties(chats.map((chatId) => since(chatObject(after, chatId), chatObject(before, chatId))));
  const turn = sumParties([worker, ...turns]);
  const statements = {
    turn: statementLines(turn, messages),
    flush: statementLines(since(objects, sumParties(turns)), messages),
  };
  const figures = priced({
    kind,
    samples: messages,
    usage: { ...countsOf(since(totalOf(after), totalOf(before))), cpuMs },
    telegramCalls: telegramCalls(fakes) - telegramBefore,
    modelCalls: made.length,
    modelInputTokens: made.reduce((sum, call) => sum + call.chars, 0) / CHARS_PER_TOKEN,
    modelOutputTokens: messages * (perCall.answers * OUTPUT_TOKENS.answer + perCall.toolCalls * OUTPUT_TOKENS.toolCall),
  });
  return { figures, statements };
}

/** The counting wrapper's own functions, left out of the CPU figure (its proxies and D1's second reads stay in). */
const INSTRUMENTATION = new Set(["busy", "snapshot", "settleCursors", "countSql", "countD1", "enter"]);

function isInstrumentation(frame: { functionName: string; url: string }): boolean {
  return frame.url.endsWith("counting-entry.js") && INSTRUMENTATION.has(frame.functionName);
}

/** Totals over `samples` messages → figures per message, priced. */
function priced(totals: Omit<CostFigures, "what" | "platformPer1000" | "modelPer1000" | "largest">): CostFigures {
  const per = 1 / totals.samples;
  const usage = scaleUsage(totals.usage, per);
  const perThousand = platformCost(scaleUsage(usage, 1000));
  const tokens = { input: totals.modelInputTokens * per, output: totals.modelOutputTokens * per };
  return {
    ...totals,
    what: WHAT[totals.kind],
    usage,
    telegramCalls: totals.telegramCalls * per,
    modelCalls: totals.modelCalls * per,
    modelInputTokens: tokens.input,
    modelOutputTokens: tokens.output,
    platformPer1000: perThousand.total,
    modelPer1000: modelCost(tokens, BENCH_MODEL.price) * 1000,
    largest: [...perThousand.lines].sort((left, right) => right.dollars - left.dollars).slice(0, 3),
  };
}

/**
 * A summary pass, by difference: chats are brought to 38 stored messages (19 plain round trips), then send one
 * message at a time (all chats together, each step waited out); the step that takes a chat past HISTORY_LIMIT (40)
 * is followed by a pass in the same alarm. A pass costs what that step cost the chat's object beyond the step before
 * it (the same turn on a history one message shorter); CPU and Telegram calls, counted per step for all chats, by a
 * least-squares fit over the steps.
 */
async function summaryPasses(context: Context, chatCount: number): Promise<CostFigures> {
  const { inspector, profiler, rest, fakes, calls, bot, watcher } = context;
  const steps = 3;
  context.log(`cost: summary pass, ${chatCount} chats × ${steps} steps past 38 stored messages`);
  const chats = newChats(chatCount);
  await Promise.all(chats.map((chatId) => roundTrips(bot, watcher, [chatId], 19)));
  await rest.all(chats);
  /** Per chat, what each step cost its object and whether a pass followed the turn. */
  const byChat = new Map<number, { cost: PartyTally; pass: ModelCall[] }[]>(chats.map((chatId) => [chatId, []]));
  const fit: { passes: number; cpuMs: number; telegram: number }[] = [];
  let before = await readTally(inspector);
  for (let step = 0; step < steps; step++) {
    const callsBefore = calls.length;
    const telegramBefore = telegramCalls(fakes);
    await profiler.start();
    await Promise.all(
      chats.map(async (chatId) => {
        await plainMessage(context, chatId);
        await rest.until(chatId);
      }),
    );
    const { cpuMs } = await profiler.stop();
    const after = await readTally(inspector);
    const summaries = calls.slice(callsBefore).filter((call) => call.summary);
    let passes = 0;
    for (const chatId of chats) {
      const pass = summaries.filter((call) => call.text.includes(`m${chatId}-`));
      if (pass.length > 0) passes++;
      byChat.get(chatId)!.push({ cost: since(chatObject(after, chatId), chatObject(before, chatId)), pass });
    }
    fit.push({ passes, cpuMs, telegram: telegramCalls(fakes) - telegramBefore });
    before = after;
  }
  const pairs = [...byChat.values()].flatMap((stepsOfChat) => {
    const index = stepsOfChat.findIndex((step) => step.pass.length > 0);
    return index > 0 ? [{ withPass: stepsOfChat[index]!, before: stepsOfChat[index - 1]! }] : [];
  });
  if (pairs.length === 0) throw new Error("summary passes: no chat had a step without a pass before one with a pass");
  const mean = (parties: PartyTally[]) =>
    scaleUsage({ ...countsOf(sumParties(parties)), cpuMs: 0 }, 1 / parties.length);
  const difference = subtractUsage(
    mean(pairs.map((pair) => pair.withPass.cost)),
    mean(pairs.map((pair) => pair.before.cost)),
  );
  const usage = {
    ...difference,
    // A pass's CPU and active time are small beside a step's; a figure below zero is the noise of the difference.
    doActiveMs: Math.max(0, difference.doActiveMs),
    cpuMs: Math.max(0, slope(fit.map((point) => [point.passes, point.cpuMs]))),
  };
  const passCalls = pairs.flatMap((pair) => pair.withPass.pass);
  // priced() takes totals over the samples: the pairs.
  return priced({
    kind: "summary pass",
    samples: pairs.length,
    usage: scaleUsage(usage, pairs.length),
    telegramCalls: Math.max(0, slope(fit.map((point) => [point.passes, point.telegram]))) * pairs.length,
    modelCalls: passCalls.length,
    modelInputTokens: passCalls.reduce((sum, call) => sum + call.chars, 0) / CHARS_PER_TOKEN,
    modelOutputTokens: OUTPUT_TOKENS.summary * passCalls.length,
  });
}

/** The least-squares slope of y over x ([x, y] points); NaN when x does not vary. */
function slope(points: [number, number][]): number {
  const n = points.length;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / n;
  const sxx = points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
  const sxy = points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0);
  return sxx === 0 ? Number.NaN : sxy / sxx;
}

/** The statements `parties` ran over `turns` turns, per turn, most frequent first. */
function statementLines(parties: PartyTally, turns: number): StatementLine[] {
  return Object.entries(parties.statements)
    .map(([statement, entry]) => ({
      statement,
      count: entry.count / turns,
      rowsRead: entry.rowsRead / turns,
      rowsWritten: entry.rowsWritten / turns,
    }))
    .sort((left, right) => right.count - left.count || right.rowsWritten - left.rowsWritten);
}
