import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ChatSession } from "../../src/durable/chat-session.ts";
import type { ScriptedResponse } from "../fakes/server.ts";
import { eventually, fakes, openaiToolCalls, PRIVATE_CHAT, post, session, settled, textUpdate } from "./helpers.ts";

/**
 * A long streamed turn with tools, as one invocation of the chat's object counts it. This file runs in two projects
 * (vitest.config.ts): "worker", where WORKERS_PLAN is unset (Paid), and "worker-free", where it is "free".
 */
const plan = env.WORKERS_PLAN === "free" ? "free" : "paid";

const LAST = "That is the whole answer.";
/** The answer streams in this many pieces, one every 80 ms: about 16 s of drafts every 400 ms. */
const PIECES = 200;

/**
 * Five tool rounds (a search, three pages, remember, recall, list_tasks), each call writing a sentence first, then an
 * answer streamed over 16 s: more than 50 requests to the internet in all.
 */
async function scriptResearch(): Promise<void> {
  const page = (name: string): ScriptedResponse => ({
    path: `/web/${name}`,
    headers: { "content-type": "text/html; charset=utf-8" },
    text: `<html><body><p>${`What ${name} says about desks. `.repeat(20)}</p></body></html>`,
  });
  await fakes.script("web", page("a"), page("b"), page("c"));
  const url = (name: string) => `${env.FAKES_URL}/web/${name}`;
  const round = (text: string, calls: { name: string; arguments: unknown }[]): ScriptedResponse => ({
    ...openaiToolCalls(calls, text),
    stream: { pieces: 8, delayMs: 100 },
  });
  const answer = `${Array.from({ length: 40 }, (_, index) => `Point ${index + 1}: a desk fact.`).join("\n\n")}\n\n${LAST}`;
  await fakes.script(
    "openai",
    round("Searching first.", [{ name: "web_search", arguments: { query: "standing desks" } }]),
    round("Reading two pages.", [
      { name: "web_fetch", arguments: { url: url("a") } },
      { name: "web_fetch", arguments: { url: url("b") } },
    ]),
    round("Noting it.", [{ name: "remember", arguments: { fact: "desks compared" } }]),
    round("One more page.", [{ name: "web_fetch", arguments: { url: url("c") } }]),
    round("Checking what I knew.", [
      { name: "recall", arguments: { query: "desks" } },
      { name: "list_tasks", arguments: {} },
    ]),
    {
      body: { ...(openaiToolCalls([], answer).body as object) },
      stream: { pieces: PIECES, delayMs: 80 },
    },
  );
}

/** What the chat's object counted: the most one invocation spent, and the fresh invocations it asked for. */
function counted() {
  return runInDurableObject(session(PRIVATE_CHAT), (instance: ChatSession) => ({
    peak: { ...instance.subrequests.peak },
    renewals: instance.subrequests.renewals,
  }));
}

/** Every request the turn made to the internet, as the fakes received them. */
async function sentOut() {
  const telegram = await fakes.requests("telegram", { chatId: PRIVATE_CHAT });
  const others = await Promise.all([fakes.requests("openai"), fakes.requests("web"), fakes.requests("search")]);
  return { telegram, external: telegram.length + others.reduce((sum, list) => sum + list.length, 0) };
}

describe(`a long streamed turn with tools on Workers ${plan}`, () => {
  it("answers whole and once, streaming all the way, within the plan's subrequests per invocation", {
    timeout: 90_000,
  }, async () => {
    await scriptResearch();
    await post(textUpdate("Which standing desk should I buy?"));
    await eventually(async () => {
      const { messages } = await fakes.chatMessages(PRIVATE_CHAT);
      return messages.some((message) => (message.text ?? "").includes(LAST));
    }, "the answer");
    await settled(PRIVATE_CHAT);

    const { messages } = await fakes.chatMessages(PRIVATE_CHAT);
    const answers = messages.filter((message) => (message.text ?? "").includes(LAST));
    expect(answers).toHaveLength(1);
    expect(answers[0]!.text).toContain("Point 1: a desk fact.");
    expect(answers[0]!.text).toContain("Point 40: a desk fact.");

    const { telegram, external } = await sentOut();
    // It streamed: a draft every 400 ms over the answer's 16 s, on either plan.
    expect(telegram.filter((request) => request.method === "sendMessageDraft").length).toBeGreaterThanOrEqual(25);
    expect(external).toBeGreaterThan(50);
    const { peak, renewals } = await counted();
    if (plan === "free") {
      // More than 50 went out, never more than 50 in one invocation: the object started fresh ones as it went.
      expect(peak.total).toBeLessThanOrEqual(50);
      expect(renewals).toBeGreaterThanOrEqual(1);
    } else {
      // As before: the whole turn in the invocation its message started, every request to the internet counted.
      expect(renewals).toBe(0);
      expect(peak.external).toBe(external);
    }
  });
});
