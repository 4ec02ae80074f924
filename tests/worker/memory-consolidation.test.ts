import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { database } from "../../src/db/database.ts";
import { MemoryRepository } from "../../src/memory/memory-repository.ts";
import type { RecordedRequest } from "../fakes/server.ts";
import {
  fakes,
  flushUsageNow,
  GROUP_CHAT,
  openaiText,
  openaiToolCalls,
  PRIVATE_CHAT,
  post,
  settled,
  textUpdate,
} from "./helpers.ts";

const ADA = PRIVATE_CHAT;
const DAY = 24 * 60 * 60 * 1000;

const bodyOf = (request: RecordedRequest) =>
  request.body as { model: string; messages: { role: string; content: string }[] };

describe("consolidating a person's memory", () => {
  it("merges repeated and contradicting facts with the cheap model, keeping the newest truth and where it came from", async () => {
    const memories = new MemoryRepository(database(env));
    const now = Date.now();
    const fact = (content: string, daysAgo: number, more: { chatId?: number; private?: boolean } = {}) =>
      memories.add({
        chatId: more.chatId ?? ADA,
        content,
        createdBy: ADA,
        createdAt: now - daysAgo * DAY,
        outside: null,
        aboutUser: ADA,
        private: more.private ?? false,
      });
    const vegetarian = await fact("Ada is vegetarian.", 9);
    const vegetarianAgain = await fact("Ada doesn't eat meat.", 3);
    const berlin = await fact("Ada lives in Berlin.", 8);
    const hamburg = await fact("Ada moved to Hamburg.", 1);
    const secret = await fact("Ada is saving for a boat.", 2, { private: true });
    const inGroup = await fact("Ada hosts the family dinner on Sundays.", 2, { chatId: GROUP_CHAT });

    const answer = {
      facts: [
        { fact: "Ada is vegetarian.", from: [vegetarian, vegetarianAgain] },
        { fact: "Ada lives in Hamburg.", from: [berlin, hamburg] },
        // Facts of different places (a private one, a group's) are never merged: this entry is left out.
        { fact: "Ada saves for a boat and hosts dinners.", from: [secret, inGroup] },
      ],
    };
    // A turn that writes a person's fact makes the person's memory looked at after the drain.
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "remember", arguments: { fact: "Ada likes tea.", scope: "person" } }]),
      openaiText("Noted."),
      openaiText(`Here you go: ${JSON.stringify(answer)}`),
    );
    await post(textUpdate("I like tea", { chatId: ADA, fromId: ADA }));
    const [, , consolidation] = await fakes.wait("openai", { count: 3 });
    await settled(ADA);

    const body = bodyOf(consolidation!);
    expect(body.model).toBe("gpt-5-mini");
    expect(body.messages[0]!.content).toContain("You tidy what an assistant remembers about one person.");
    // The model sees places as labels, never chat ids.
    expect(body.messages[1]!.content).not.toContain(String(GROUP_CHAT));

    const kept = await memories.aboutPerson(ADA);
    expect(kept.map((row) => row.content).sort()).toEqual(
      [
        "Ada hosts the family dinner on Sundays.",
        "Ada is saving for a boat.",
        "Ada is vegetarian.",
        "Ada lives in Hamburg.",
        "Ada likes tea.",
      ].sort(),
    );
    const hamburgNow = kept.find((row) => row.content === "Ada lives in Hamburg.")!;
    expect(hamburgNow.createdAt).toBe(now - 1 * DAY);
    expect(JSON.parse(hamburgNow.mergedFrom!)).toEqual([
      expect.objectContaining({ id: berlin, chatId: ADA }),
      expect.objectContaining({ id: hamburg, chatId: ADA }),
    ]);
    expect(kept.find((row) => row.id === secret)?.private).toBe(true);
    expect(kept.find((row) => row.id === inGroup)?.chatId).toBe(GROUP_CHAT);

    // Counted against the chat's budget and priced at the catalog's list price.
    await flushUsageNow(ADA);
    const usage = await env.DB.prepare(
      "SELECT kind, model, cost_usd FROM usage_records WHERE model = 'gpt-5-mini'",
    ).all<{ kind: string; model: string; cost_usd: number }>();
    expect(usage.results).toHaveLength(1);
    expect(usage.results[0]).toMatchObject({ kind: "summary", model: "gpt-5-mini" });
    expect(usage.results[0]!.cost_usd).toBeGreaterThan(0);

    // Another fact the same day: not due again (a day must pass, unless the memory is over its cap).
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "remember", arguments: { fact: "Ada reads Fontane.", scope: "person" } }]),
      openaiText("Noted."),
    );
    await post(textUpdate("I read Fontane", { chatId: ADA, fromId: ADA }));
    await fakes.wait("openai", { count: 5 });
    await settled(ADA);
    expect(await fakes.requests("openai")).toHaveLength(5);
  });

  it("a person with few facts under the cap costs no call, and a turn that writes none costs no look", async () => {
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "remember", arguments: { fact: "Ada is vegetarian.", scope: "person" } }]),
      openaiText("Noted."),
    );
    await post(textUpdate("I'm vegetarian", { chatId: ADA, fromId: ADA }));
    await fakes.wait("openai", { count: 2 });
    await settled(ADA);
    expect(await fakes.requests("openai")).toHaveLength(2);
    await post(textUpdate("hello", { chatId: ADA, fromId: ADA }));
    await fakes.wait("openai", { count: 3 });
    await settled(ADA);
    expect(await fakes.requests("openai")).toHaveLength(3);
  });
});
