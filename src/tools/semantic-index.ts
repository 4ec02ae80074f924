import * as z from "zod";

/** The part of the `AI` binding embeddings need (`env.AI` has it; tests pass a fake). */
export interface EmbeddingRunner {
  run(model: string, inputs: Record<string, unknown>): Promise<unknown>;
}

/** The part of a Vectorize binding the history index uses (tests pass a fake). */
export interface VectorIndex {
  upsert(vectors: { id: string; values: number[]; namespace: string }[]): Promise<unknown>;
  query(
    vector: number[],
    options: { topK: number; namespace: string; returnValues: false; returnMetadata: "none" },
  ): Promise<unknown>;
  deleteByIds(ids: string[]): Promise<unknown>;
}

/** A message is embedded from its first characters; bge models read 512 (bge-m3: 8,192) tokens at most. */
const EMBEDDED_CHARS = 2_000;
/** Texts per embeddings call. */
const BATCH = 50;

const embeddingsSchema = z.object({ data: z.array(z.array(z.number())) });
const matchesSchema = z.object({ matches: z.array(z.object({ id: z.string(), score: z.number() })) });

/**
 * One chat's messages in a Vectorize index, by meaning: embedded with a Workers AI model, in the chat's own namespace
 * (its chat key), each vector's id the chat key and the history row's id. Only ids come back; the text is read from
 * the chat's own store, and an id of any other namespace is dropped.
 */
export class SemanticIndex {
  private readonly ai: EmbeddingRunner;
  private readonly vectors: VectorIndex;
  private readonly model: string;
  private readonly namespace: string;

  constructor(options: { ai: EmbeddingRunner; vectors: VectorIndex; model: string; namespace: string }) {
    this.ai = options.ai;
    this.vectors = options.vectors;
    this.model = options.model;
    this.namespace = options.namespace;
  }

  /** The history rows nearest in meaning to `text`, best first. */
  async nearest(text: string, topK: number): Promise<number[]> {
    const [vector] = await this.embed([text]);
    if (!vector) return [];
    const answer = matchesSchema.safeParse(
      await this.vectors.query(vector, {
        topK,
        namespace: this.namespace,
        returnValues: false,
        returnMetadata: "none",
      }),
    );
    if (!answer.success) throw new Error("Vectorize answered a query in a shape this bot does not read");
    return answer.data.matches.flatMap((match) => {
      const id = this.rowIdOf(match.id);
      return id === undefined ? [] : [id];
    });
  }

  /** Embeds and stores these messages (upserted: a row embedded twice keeps one vector). */
  async add(rows: readonly { id: number; text: string }[]): Promise<void> {
    for (let start = 0; start < rows.length; start += BATCH) {
      const batch = rows.slice(start, start + BATCH);
      const vectors = await this.embed(batch.map((row) => row.text));
      await this.vectors.upsert(
        batch.map((row, index) => ({
          id: this.vectorIdOf(row.id),
          values: vectors[index] ?? [],
          namespace: this.namespace,
        })),
      );
    }
  }

  /** Deletes the vectors of these rows (they were deleted from the chat's history). */
  async remove(ids: readonly number[]): Promise<void> {
    for (let start = 0; start < ids.length; start += 1_000) {
      await this.vectors.deleteByIds(ids.slice(start, start + 1_000).map((id) => this.vectorIdOf(id)));
    }
  }

  private async embed(texts: string[]): Promise<number[][]> {
    const answer = embeddingsSchema.safeParse(
      await this.ai.run(this.model, { text: texts.map((text) => text.slice(0, EMBEDDED_CHARS)) }),
    );
    if (!answer.success || answer.data.data.length !== texts.length) {
      throw new Error(`${this.model} answered in a shape this bot does not read as embeddings`);
    }
    return answer.data.data;
  }

  private vectorIdOf(rowId: number): string {
    return `${this.namespace}/${rowId}`;
  }

  private rowIdOf(vectorId: string): number | undefined {
    const prefix = `${this.namespace}/`;
    if (!vectorId.startsWith(prefix)) return undefined;
    const id = Number(vectorId.slice(prefix.length));
    return Number.isSafeInteger(id) && id > 0 ? id : undefined;
  }
}
