import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SUMMARY_SYSTEM_PROMPT } from "../../src/compaction/summary.ts";
import { summaryFailureSlot, summarySlot } from "../../src/compaction/summary-slots.ts";
import type { HistoryMessage } from "../../src/protocol/messages.ts";
import type { RecordedRequest } from "../fakes/server.ts";
import { admin, fakes, openaiText, PRIVATE_CHAT, say, sentText, session, settled } from "./helpers.ts";

interface OpenAIBody {
  model: string;
  messages: { role: string; content: string }[];
}

const bodyOf = (request: RecordedRequest) => request.body as OpenAIBody;
const systemOf = (request: RecordedRequest) => bodyOf(request).messages[0]!.content;
const isSummaryRequest = (request: RecordedRequest) => systemOf(request) === SUMMARY_SYSTEM_PROMPT;

/** A conversation of `turns` user/assistant pairs, the first saying the chat's secret word. */
function conversation(turns: number): HistoryMessage[] {
  return Array.from({ length: turns }, (_, index): HistoryMessage[] => [
    { role: "user", content: index === 0 ? "My secret word is Zebulon." : `message number ${index}` },
    { role: "assistant", content: `answer number ${index}` },
  ]).flat();
}

/** Puts history into the chat's object as earlier turns would have. */
async function seed(messages: HistoryMessage[]): Promise<void> {
  await runInDurableObject(session(PRIVATE_CHAT), (instance) => {
    instance.stores.history.append(messages, Date.now());
  });
}

const stored = () =>
  runInDurableObject(session(PRIVATE_CHAT), (instance) => ({
    count: instance.stores.history.count(),
    summary: instance.stores.meta.get(summarySlot),
    failure: instance.stores.meta.get(summaryFailureSlot),
  }));

/** A turn answered in a chat due for a summary, then a summary pass that never ends by itself (it is under way). */
async function answerThenSummarizeForever(): Promise<void> {
  await seed(conversation(30));
  await fakes.script("openai", openaiText("First."), { hang: true });
  expect(sentText(await say("hello again"))).toBe("First.");
  const [, hanging] = await fakes.wait("openai", { count: 2 });
  expect(isSummaryRequest(hanging!)).toBe(true);
}

describe("compaction by summary", () => {
  it("folds the older part into a summary after the answer, uses it next turn, and keeps the transcript", async () => {
    // HISTORY_LIMIT is 40: 60 stored messages outgrow the window.
    await seed(conversation(30));
    const answer = await say("hello again");
    expect(sentText(answer)).toBe("echo: hello again");
    // The answer's request came first; the summary pass after it, in the same drain.
    const [turn, summarising] = await fakes.wait("openai", { count: 2 });
    expect(isSummaryRequest(turn!)).toBe(false);
    expect(isSummaryRequest(summarising!)).toBe(true);
    const folded = bodyOf(summarising!).messages[1]!.content;
    expect(folded).toContain("Summary so far:\n(none yet)");
    expect(folded).toContain("User: My secret word is Zebulon.");
    expect(folded).toContain("Assistant: answer number 0");
    await settled(PRIVATE_CHAT);
    const after = await stored();
    expect(after.count).toBe(62);
    expect(after.summary?.text).toContain("Zebulon");
    expect(after.summary?.messages).toBeGreaterThan(0);

    await say("what was my secret word?", { count: 2 });
    const next = (await fakes.requests("openai")).filter((request) => !isSummaryRequest(request)).at(-1)!;
    expect(systemOf(next)).toContain("Summary of the earlier conversation");
    expect(systemOf(next)).toContain("Zebulon");
    // The folded messages are not sent again; the newest ones are.
    const sent = bodyOf(next).messages.map((message) => message.content);
    expect(sent).not.toContain("My secret word is Zebulon.");
    expect(sent).toContain("hello again");
    expect(sent.at(-1)).toBe("what was my secret word?");
  });

  it("keeps the summary when the chat moves to another provider", async () => {
    await seed(conversation(30));
    await say("hello again");
    await fakes.wait("openai", { count: 2 });
    await settled(PRIVATE_CHAT);
    await admin(`/chats/${PRIVATE_CHAT}/config`, {
      method: "PUT",
      body: JSON.stringify({ provider: "anthropic", model: "claude-test" }),
    });
    await say("still there?", { count: 2 });
    const request = (await fakes.requests("anthropic"))[0]!;
    const system = JSON.stringify((request.body as { system: unknown }).system);
    expect(system).toContain("Summary of the earlier conversation");
    expect(system).toContain("Zebulon");
  });

  it("answers when the summary fails, says so in /status, and tries again after the next turn", async () => {
    await seed(conversation(30));
    const failing = { status: 500, headers: { "retry-after-ms": "1" }, body: { error: { message: "down" } } };
    // The answer, then three failures: the summary pass and its two retries.
    await fakes.script("openai", openaiText("Here I am."), failing, failing, failing);
    expect(sentText(await say("hello again"))).toBe("Here I am.");
    await fakes.wait("openai", { count: 4 });
    await settled(PRIVATE_CHAT);
    const failed = await stored();
    expect(failed.summary).toBeUndefined();
    expect(failed.failure?.reason).toContain("500");

    const status = sentText(await say("/status", { count: 2 }));
    expect(status).toContain("none yet");
    expect(status).toContain("the last update failed");

    // The next turn uses the window alone (no summary yet), then the summary is made.
    await say("and now?", { count: 3 });
    await fakes.wait("openai", { count: 6 });
    await settled(PRIVATE_CHAT);
    const retried = await stored();
    expect(retried.summary?.text).toContain("Zebulon");
    expect(retried.failure).toBeUndefined();
  });

  it("stops a summary pass when a message arrives, answers it, and folds after that turn", async () => {
    await answerThenSummarizeForever();
    // Answered although the summary was still being written: the message stopped it.
    expect(sentText(await say("are you there?", { count: 2 }))).toBe("echo: are you there?");
    await fakes.wait("openai", { count: 4 });
    await settled(PRIVATE_CHAT);
    const after = await stored();
    // A stopped pass is no failure; the one after the second turn wrote the summary.
    expect(after.failure).toBeUndefined();
    expect(after.summary?.text).toContain("Zebulon");
  });

  it("answers a message that arrives during the summary pass in the drain that was summarizing, not an alarm later", async () => {
    await answerThenSummarizeForever();
    const drainStart = () => runInDurableObject(session(PRIVATE_CHAT), (instance) => instance.schedule.drainStartedAt);
    const summarizing = await drainStart();
    expect(sentText(await say("are you there?", { count: 2 }))).toBe("echo: are you there?");
    await fakes.wait("openai", { count: 4 });
    await settled(PRIVATE_CHAT);
    // The drain went round again as the message came: an alarm's drain would have started later.
    expect(await drainStart()).toBe(summarizing);
    expect((await stored()).summary?.text).toContain("Zebulon");
  });

  it("shows the summary with /summary and its size and age in /status; /new clears it", async () => {
    expect(sentText(await say("/summary"))).toContain("There is no summary yet");
    await seed(conversation(30));
    await say("hello again", { count: 2 });
    await fakes.wait("openai", { count: 2 });
    await settled(PRIVATE_CHAT);
    const shown = sentText(await say("/summary", { count: 3 }));
    expect(shown).toContain("📝 Summary of the earlier conversation (updated just now)");
    expect(shown).toContain("Zebulon");
    const status = sentText(await say("/status", { count: 4 }));
    expect(status).toMatch(/Summary:<\/b> [\d,]+ characters covering \d+ earlier messages, updated just now/);

    await say("/new", { count: 5 });
    const cleared = await stored();
    expect(cleared.summary).toBeUndefined();
    expect(cleared.count).toBe(0);
    expect(sentText(await say("/summary", { count: 6 }))).toContain("There is no summary yet");
  });

  it("still knows the first thing said after a 300-message conversation", { timeout: 180_000 }, async () => {
    // 150 turns through the webhook, as a person would write them; summaries roll along the way.
    expect(sentText(await say("My secret word is Zebulon."))).toBe("echo: My secret word is Zebulon.");
    for (let turn = 2; turn <= 150; turn++) {
      await say(`message number ${turn}`, { count: turn });
    }
    await settled(PRIVATE_CHAT);
    const after = await stored();
    // Nothing of the transcript is lost (HISTORY_MAX_STORED is 400 here).
    expect(after.count).toBe(300);
    expect(after.summary?.messages).toBeGreaterThan(200);

    await say("What is my secret word?", { count: 151 });
    const last = (await fakes.requests("openai")).filter((request) => !isSummaryRequest(request)).at(-1)!;
    const sent = bodyOf(last).messages.map((message) => message.content);
    expect(sent).not.toContain("My secret word is Zebulon.");
    // The system prompt, the window (HISTORY_LIMIT: 40 messages at most), the new message.
    expect(sent.length).toBeLessThanOrEqual(1 + 40 + 1);
    // The model is given the first thing said, through the summary.
    expect(systemOf(last)).toContain("Zebulon");
  });
});
