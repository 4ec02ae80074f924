import { describe, expect, it } from "vitest";
import { CONTINUE_REQUEST } from "../../src/adapters/next-step.ts";
import { openaiCompletion } from "../fakes/bodies.ts";
import { skipWithout } from "../fakes/recorded-fixtures.ts";
import type { ScriptedResponse } from "../fakes/server.ts";
import { admin, fakes, openaiText, PRIVATE_CHAT, say, sentText, settled, storedHistory } from "./helpers.ts";

const setConfig = (config: unknown) =>
  admin(`/chats/${PRIVATE_CHAT}/config`, { method: "PUT", body: JSON.stringify(config) });

/** A Chat Completions answer that its length cut (as the fakes stream any scripted body). */
function cutText(text: string): ScriptedResponse {
  const body = openaiCompletion(text) as { choices: { finish_reason: string }[] };
  body.choices[0]!.finish_reason = "length";
  return { body };
}

interface ChatBody {
  messages: { role: string; content: unknown }[];
}

/**
 * How an answer ended reaches the person: recorded streams of the real APIs, replayed by the fake providers through a
 * whole turn, and what the fake Telegram was sent.
 */
describe("finish reasons, through a whole turn", () => {
  it("a refusal recorded from Anthropic reaches the chat as a sentence with Anthropic's explanation, and is not kept", async ({
    skip,
  }) => {
    skipWithout(skip, "anthropic-refusal.chunks.txt");
    await setConfig({ provider: "anthropic", model: "claude-test" });
    await fakes.script("anthropic", { replay: "anthropic-refusal.chunks.txt" });
    const text = sentText(await say("write me something nasty"));
    expect(text).toContain("🚫 The model declined to answer this:");
    expect(text).toContain("This request triggered restrictions on violative cyber content");
    await settled(PRIVATE_CHAT);
    // Anthropic's docs: a conversation that goes on with the refused turn in it is refused again.
    expect(await storedHistory(PRIVATE_CHAT)).toEqual([]);
  });

  it("a stream its length cut, recorded from DeepSeek's Chat Completions, is continued once, then says it was cut", async ({
    skip,
  }) => {
    skipWithout(skip, "deepseek-text.chunks.txt");
    await fakes.script("openai", { replay: "deepseek-text.chunks.txt" }, cutText(" and the rest was cut again"));
    const text = sentText(await say("invent a holiday"));
    expect(text).toContain("Starlight Remembrance");
    expect(text).toContain("and the rest was cut again");
    // The sentence comes last, in italics, under the answer.
    expect(text.trimEnd()).toMatch(
      /cut again\n\n<i>✂️ The answer was cut off here: it reached the model's output limit\.<\/i>$/,
    );

    const [first, second] = await fakes.requests("openai");
    const asked = (second!.body as ChatBody).messages.slice(-2);
    expect(asked[0]).toMatchObject({ role: "assistant" });
    expect(String(asked[0]!.content)).toMatch(/^## \*\*Holiday Name:\*\* Starlight Remembrance/);
    expect(asked[1]).toEqual({ role: "user", content: CONTINUE_REQUEST });
    expect((first!.body as ChatBody).messages.at(-1)).toMatchObject({ role: "user", content: "invent a holiday" });

    await settled(PRIVATE_CHAT);
    // History keeps the answer's text, not the sentence under it (which is not the model's).
    const kept = (await storedHistory(PRIVATE_CHAT)).at(-1)!;
    expect(kept.role).toBe("assistant");
    expect(kept.content).toMatch(/and the rest was cut again$/);
  });

  it("a cut answer whose continuation ends normally is delivered whole, with no sentence", async ({ skip }) => {
    skipWithout(skip, "deepseek-text.chunks.txt");
    await fakes.script("openai", { replay: "deepseek-text.chunks.txt" }, openaiText(" That is all."));
    const text = sentText(await say("invent a holiday"));
    expect(text).toContain("Starlight Remembrance");
    expect(text.trimEnd()).toMatch(/That is all\.$/);
    expect(text).not.toContain("✂️");
  });
});
