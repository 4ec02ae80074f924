import * as z from "zod";
import type { NewFact, StoredFact } from "./memory-repository.ts";

/** The system prompt of a consolidation call: the cheap model tidies one person's facts. */
export const CONSOLIDATION_SYSTEM_PROMPT = [
  "You tidy what an assistant remembers about one person. You get their facts as JSON, each with an id, its date,",
  'the place it was said ("place") and the fact. Merge facts of the same place that say the same thing into one;',
  "when facts of the same place contradict each other, keep only what the newest one says. Never merge facts of",
  "different places. Keep every other fact as it is. Never add anything the facts do not say. Keep each fact short,",
  "in the third person, with names. Answer with JSON only, no prose:",
  '{"facts":[{"fact":"…","from":[the ids of the facts it stands for]}]}, listing every fact to keep (a fact kept',
  "unchanged lists its own id).",
].join(" ");

const answerSchema = z.object({
  facts: z
    .array(
      z.object({
        fact: z.string().trim().min(1).max(2000),
        from: z.array(z.number().int()).min(1).max(200),
      }),
    )
    .max(400),
});

/** The facts as the model reads them: id, date, place (an opaque label of where it may be used) and text. */
export function consolidationRequest(facts: readonly StoredFact[]): string {
  const places = placeLabels(facts);
  const listed = [...facts]
    .sort((a, b) => a.createdAt - b.createdAt)
    .map((fact) => ({
      id: fact.id,
      date: new Date(fact.createdAt).toISOString().slice(0, 10),
      place: places.get(placeOf(fact)),
      fact: fact.content,
    }));
  return `The person's facts:\n${JSON.stringify(listed)}`;
}

/** What consolidation changes: the facts it replaces, and the merged facts that take their place. */
export interface ConsolidationPlan {
  replaced: number[];
  merged: NewFact[];
}

/**
 * The model's answer as a plan, checked: an entry that names an unknown id, an id another entry took, or facts of
 * different places (where they may be used: the chat said in, private or not) is left out, and the facts it named are
 * kept as they were; a fact the answer does not mention is kept too. A merged fact keeps the newest source's date, the
 * first provenance mark among its sources, and the list of what it came from. Undefined when the answer is not JSON.
 */
export function consolidationPlan(
  answer: string,
  facts: readonly StoredFact[],
  now: number,
): ConsolidationPlan | undefined {
  const json = /\{[\s\S]*\}/.exec(answer)?.[0];
  if (json === undefined) return undefined;
  let parsed: z.infer<typeof answerSchema>;
  try {
    const read = answerSchema.safeParse(JSON.parse(json));
    if (!read.success) return undefined;
    parsed = read.data;
  } catch {
    return undefined;
  }
  const byId = new Map(facts.map((fact) => [fact.id, fact]));
  const taken = new Set<number>();
  const plan: ConsolidationPlan = { replaced: [], merged: [] };
  for (const entry of parsed.facts) {
    const ids = [...new Set(entry.from)];
    const sources = ids.flatMap((id) => byId.get(id) ?? []);
    if (sources.length !== ids.length || ids.some((id) => taken.has(id))) continue;
    if (new Set(sources.map(placeOf)).size !== 1) continue;
    for (const id of ids) taken.add(id);
    const [only] = sources;
    if (sources.length === 1 && only && only.content === entry.fact) continue;
    const newest = sources.reduce((a, b) => (b.createdAt > a.createdAt ? b : a));
    plan.replaced.push(...ids);
    plan.merged.push({
      chatId: newest.chatId,
      content: entry.fact,
      createdBy: newest.createdBy,
      createdAt: Math.min(newest.createdAt, now),
      outside: sources.find((fact) => fact.outside !== null)?.outside ?? null,
      aboutUser: newest.aboutUser,
      private: newest.private,
      mergedFrom: JSON.stringify(
        sources.map((fact) => ({ id: fact.id, chatId: fact.chatId, at: new Date(fact.createdAt).toISOString() })),
      ),
    });
  }
  return plan;
}

/** Where a fact may be used: the chat it was said in, and whether it is private. Facts merge only within one. */
function placeOf(fact: Pick<StoredFact, "chatId" | "private">): string {
  return `${fact.chatId}:${fact.private ? "private" : "shared"}`;
}

/** Short labels for the places, so the model sees no chat ids. */
function placeLabels(facts: readonly StoredFact[]): Map<string, string> {
  const labels = new Map<string, string>();
  for (const fact of facts) {
    const place = placeOf(fact);
    if (!labels.has(place))
      labels.set(place, String.fromCharCode(65 + (labels.size % 26)) + (labels.size >= 26 ? labels.size : ""));
  }
  return labels;
}
