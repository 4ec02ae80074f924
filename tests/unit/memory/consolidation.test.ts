import { describe, expect, it } from "vitest";
import { consolidationPlan, consolidationRequest } from "../../../src/memory/consolidation.ts";
import type { StoredFact } from "../../../src/memory/memory-repository.ts";

const fact = (id: number, content: string, more: Partial<StoredFact> = {}): StoredFact => ({
  id,
  content,
  chatId: 1001,
  createdBy: 1001,
  createdAt: Date.parse("2026-11-01T00:00:00Z") + id * 86_400_000,
  outside: null,
  aboutUser: 1001,
  private: false,
  mergedFrom: null,
  ...more,
});

const facts = [
  fact(1, "Ada is vegetarian."),
  fact(2, "Ada eats no meat.", { outside: "a web page" }),
  fact(3, "Ada lives in Berlin.", { private: true }),
  fact(4, "Ada likes tea."),
];

describe("consolidationPlan", () => {
  it("merges within one place, keeps the newest date and the first provenance mark", () => {
    const plan = consolidationPlan(
      '{"facts":[{"fact":"Ada is vegetarian.","from":[1,2]},{"fact":"Ada likes tea.","from":[4]}]}',
      facts,
      Date.now(),
    );
    expect(plan?.replaced).toEqual([1, 2]);
    expect(plan?.merged).toEqual([
      expect.objectContaining({ content: "Ada is vegetarian.", createdAt: facts[1]!.createdAt, outside: "a web page" }),
    ]);
  });

  it("leaves out entries that cross places, name unknown or taken ids; unmentioned facts stay", () => {
    const answer = JSON.stringify({
      facts: [
        { fact: "Ada is a vegetarian in Berlin.", from: [1, 3] },
        { fact: "Ada likes coffee.", from: [99] },
        { fact: "Ada likes tea a lot.", from: [4] },
        { fact: "Ada likes tea.", from: [4] },
      ],
    });
    const plan = consolidationPlan(answer, facts, Date.now());
    expect(plan?.replaced).toEqual([4]);
    expect(plan?.merged.map((merged) => merged.content)).toEqual(["Ada likes tea a lot."]);
  });

  it("refuses an answer that is not the JSON asked for", () => {
    expect(consolidationPlan("I merged them.", facts, Date.now())).toBeUndefined();
    expect(consolidationPlan('{"facts":[{"fact":"","from":[]}]}', facts, Date.now())).toBeUndefined();
  });

  it("shows the model places as labels, never chat ids", () => {
    const text = consolidationRequest([...facts, fact(5, "Ada hosts dinner.", { chatId: -2001 })]);
    expect(text).not.toContain("-2001");
    expect(text).not.toContain("1001");
    expect(text).toContain('"place":"A"');
  });
});
