import * as z from "zod";

const KEY = "retired-models";
/** The most models remembered; the oldest report goes first. */
const KEPT = 20;

const retiredSchema = z.record(
  z.string().max(260),
  z.object({
    provider: z.string().max(40),
    model: z.string().max(200),
    at: z.number(),
    fellBackTo: z.string().max(260),
  }),
);
export type RetiredModels = z.infer<typeof retiredSchema>;

/**
 * The models a provider refused as not served (retired) when a chat asked for them: `/health` lists them, so the
 * owner changes the chats or DEFAULT_MODEL that still name one. One KV key, written (best effort) when a chat falls
 * back from such a model; a model found served again is not cleared automatically (the owner's fix is to stop naming it).
 */
export class RetiredModelsStore {
  constructor(private readonly kv: KVNamespace) {}

  async read(): Promise<RetiredModels> {
    const raw = await this.kv.get(KEY, "text");
    if (raw === null) return {};
    try {
      const parsed = retiredSchema.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : {};
    } catch {
      return {};
    }
  }

  async report(entry: { provider: string; model: string; fellBackTo: string; at: number }): Promise<void> {
    const retired = await this.read();
    const key = `${entry.provider}:${entry.model}`;
    if (retired[key]?.fellBackTo === entry.fellBackTo) return;
    retired[key] = entry;
    const newest = Object.entries(retired)
      .sort(([, a], [, b]) => b.at - a.at)
      .slice(0, KEPT);
    await this.kv.put(KEY, JSON.stringify(Object.fromEntries(newest)));
  }
}
