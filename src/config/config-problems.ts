import * as z from "zod";

const KEY = "config-problems";

const problemsSchema = z.record(
  z.string().regex(/^-?\d{1,16}$/),
  z.object({ problem: z.string().max(500), at: z.number() }),
);
export type ConfigProblems = z.infer<typeof problemsSchema>;

/**
 * The chats whose stored config is invalid (someone wrote KV by hand, or an older version's config no longer
 * reads): such a chat gets no model call until it is fixed, and `/health` says how many there are. One KV key, written
 * by the chat's object when it refuses a turn for it and cleared when a valid config is written or the config removed.
 */
export class ConfigProblemsStore {
  constructor(private readonly kv: KVNamespace) {}

  async read(): Promise<ConfigProblems> {
    const raw = await this.kv.get(KEY, "text");
    if (raw === null) return {};
    try {
      const parsed = problemsSchema.safeParse(JSON.parse(raw));
      return parsed.success ? parsed.data : {};
    } catch {
      return {};
    }
  }

  async report(chatId: number, problem: string, now: number): Promise<void> {
    const problems = await this.read();
    problems[String(chatId)] = { problem: problem.slice(0, 500), at: now };
    await this.kv.put(KEY, JSON.stringify(problems));
  }

  async clear(chatId: number): Promise<void> {
    const problems = await this.read();
    if (!(String(chatId) in problems)) return;
    delete problems[String(chatId)];
    await this.kv.put(KEY, JSON.stringify(problems));
  }
}
