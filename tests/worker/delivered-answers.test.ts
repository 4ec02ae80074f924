import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CUT_NOTE } from "../../src/telegram/split.ts";
import { firstMissingWord, generateAnswer, generateRichAnswer } from "../fakes/answers.ts";
import { openaiCompletion } from "../fakes/bodies.ts";
import {
  fakes,
  GROUP_CHAT,
  PRIVATE_CHAT,
  postUpdate,
  type StoredChatMessage,
  session,
  settled,
  textUpdate,
  withRichMessages,
} from "./helpers.ts";

/**
 * Generated model answers (tests/fakes/answers.ts: random and adversarial Markdown, lengths around every limit),
 * through the whole path: webhook, chat object, a streamed model answer, drafts in a private chat and an edited
 * message in a group, and the final formatted messages. The fake Telegram (TDLib's own parser) must refuse none of
 * the bot's calls, and every word of each answer must be in the messages the chat ends with.
 */
const tdlib = (await fakes.telegram()).tdlib;
if (!tdlib.available) console.warn(`[delivered answers] skipped: TDLib's parser is not available (${tdlib.reason})`);

/**
 * What a delivered message says: the text Telegram parsed, or a rich message's Markdown as written (escapes
 * undone): the fake checks a rich message's limits but does not render its Markdown, so its words are read there.
 */
function deliveredText(message: StoredChatMessage): string {
  if (message.content.kind !== "rich") return message.content.text ?? "";
  const input = message.sent.richMessage as { markdown?: string } | undefined;
  return (input?.markdown ?? "").replace(/\\([!-/:-@[-`{-~])/g, "$1");
}

/** Delivers one generated answer to `chatId` and says what went wrong, if anything. */
async function deliver(
  seed: number,
  chatId: number,
  stream: { pieces: number; delayMs: number },
  rich?: "auto" | "always",
  answer: (seed: number) => string = generateAnswer,
): Promise<string[]> {
  const markdown = answer(seed);
  // Each answer starts afresh: a growing history would be summarised through the same fake model, and the fakes'
  // records of earlier answers would only slow the next one down (their violations are read first).
  const problems = (await fakes.telegram()).violations.map((violation) => `seed ${seed - 1}: ${violation.text}`);
  await fetch(`${env.FAKES_URL}/__control/reset`, { method: "POST" });
  await runInDurableObject(session(chatId), (instance) => instance.stores.history.clear());
  if (rich) await withRichMessages(chatId, { richMessages: rich });
  await fakes.script("openai", { body: openaiCompletion(markdown), stream });
  const group = chatId < 0;
  const response = await postUpdate(textUpdate(group ? `@testbot answer ${seed}` : `answer ${seed}`, { chatId }));
  if (response.status !== 200) return [...problems, `seed ${seed}: the webhook answered ${response.status}`];
  // The turn starts as the message arrives; the alarm behind it runs after it ends, and then nothing is left.
  await runDurableObjectAlarm(session(chatId));
  await settled(chatId);
  for (const call of (await fakes.requests("telegram")).filter((request) => request.refusal && !request.scripted)) {
    problems.push(`seed ${seed}: ${call.method} refused: ${call.refusal} ${call.detail ?? ""}`);
  }
  const delivered = (await fakes.chatMessages(chatId)).messages.map(deliveredText);
  const missing = firstMissingWord(markdown, delivered, { cut: delivered.at(-1)?.endsWith(CUT_NOTE) ?? false });
  if (missing !== undefined) problems.push(`seed ${seed}: "${missing}" never arrives (${markdown.length} characters)`);
  return problems;
}

describe.skipIf(!tdlib.available)("generated answers, end to end, against TDLib's parser", () => {
  it("delivers 300 answers streamed at once to a private chat, refusing nothing, losing no word", async () => {
    const problems: string[] = [];
    for (let seed = 1; seed <= 300; seed++)
      problems.push(...(await deliver(seed, PRIVATE_CHAT, { pieces: 3, delayMs: 0 })));
    expect(problems).toEqual([]);
  }, 120_000);

  it("delivers answers that stream slowly enough for drafts in a private chat", async () => {
    const problems: string[] = [];
    let drafts = 0;
    for (let seed = 1001; seed <= 1010; seed++) {
      problems.push(...(await deliver(seed, PRIVATE_CHAT, { pieces: 6, delayMs: 90 })));
      drafts += (await fakes.requests("telegram", { method: "sendMessageDraft" })).length;
    }
    expect(drafts).toBeGreaterThan(0);
    // The known bug shown by the test below (half a surrogate pair in a long draft) is left to it.
    expect(problems.filter((problem) => !/sendMessageDraft refused: .*must be encoded in UTF-8/.test(problem))).toEqual(
      [],
    );
  }, 60_000);

  it("delivers answers that stream slowly enough to be edited in place in a group", async () => {
    const problems: string[] = [];
    let edits = 0;
    for (let seed = 2001; seed <= 2004; seed++) {
      problems.push(...(await deliver(seed, GROUP_CHAT, { pieces: 8, delayMs: 180 })));
      edits += (await fakes.requests("telegram", { method: "editMessageText" })).length;
    }
    expect(edits).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  }, 60_000);

  it("delivers 200 answers as rich messages to a private chat, refusing nothing, losing no word", async () => {
    const problems: string[] = [];
    for (let seed = 1; seed <= 100; seed++) {
      problems.push(...(await deliver(seed, PRIVATE_CHAT, { pieces: 3, delayMs: 0 }, "always")));
      problems.push(...(await deliver(seed, PRIVATE_CHAT, { pieces: 3, delayMs: 0 }, "auto", generateRichAnswer)));
    }
    const rich = (await fakes.requests("telegram", { method: "sendRichMessage" })).length;
    expect(problems).toEqual([]);
    expect(rich).toBeGreaterThan(0);
  }, 180_000);

  it("streams rich answers in rich drafts and as one rich message edited in a group, refusing nothing", async () => {
    const problems: string[] = [];
    let drafts = 0;
    let edits = 0;
    for (let seed = 3001; seed <= 3012; seed++) {
      problems.push(...(await deliver(seed, PRIVATE_CHAT, { pieces: 6, delayMs: 90 }, "auto", generateRichAnswer)));
      drafts += (await fakes.requests("telegram", { method: "sendRichMessageDraft" })).length;
    }
    for (let seed = 4001; seed <= 4004; seed++) {
      problems.push(...(await deliver(seed, GROUP_CHAT, { pieces: 8, delayMs: 180 }, "auto", generateRichAnswer)));
      edits += (await fakes.requests("telegram", { method: "editMessageText" })).length;
    }
    expect(problems).toEqual([]);
    expect(drafts).toBeGreaterThan(0);
    expect(edits).toBeGreaterThan(0);
  }, 120_000);

  it("streams a long emoji answer in drafts without Telegram refusing one", async () => {
    const answer = "😀".repeat(2100);
    await fakes.script("openai", { body: openaiCompletion(answer), stream: { pieces: 6, delayMs: 120 } });
    await postUpdate(textUpdate("emoji, please"));
    await runDurableObjectAlarm(session(PRIVATE_CHAT));
    await settled(PRIVATE_CHAT);
    const refused = (await fakes.requests("telegram")).filter((request) => request.refusal);
    expect(refused.map((request) => `${request.method}: ${request.refusal}`)).toEqual([]);
  });

  it("streams a long emoji answer as an edited group message without Telegram refusing an update", async () => {
    const answer = `a${"😀".repeat(2100)}`;
    await fakes.script("openai", { body: openaiCompletion(answer), stream: { pieces: 10, delayMs: 200 } });
    await postUpdate(textUpdate("@testbot emoji, please", { chatId: GROUP_CHAT }));
    await runDurableObjectAlarm(session(GROUP_CHAT));
    await settled(GROUP_CHAT);
    const refused = (await fakes.requests("telegram")).filter((request) => request.refusal);
    expect(refused.map((request) => `${request.method}: ${request.refusal}`)).toEqual([]);
  });
});
