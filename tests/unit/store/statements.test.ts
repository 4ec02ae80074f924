import { asc, desc } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/chat-schema.ts";
import { orderedLimit, preparedPer } from "../../../src/store/statements.ts";

// Only the query building is under test here: D1's drizzle builds the same SQLite text as the chat object's, and
// `toSQL()` never reaches the database, so there is none.
const db = drizzle({} as D1Database);

describe("orderedLimit", () => {
  it("writes the row count into the statement's text instead of binding it", () => {
    const { sql, params } = db
      .select({ id: schema.history.id })
      .from(schema.history)
      .orderBy(orderedLimit(desc(schema.history.id), 12))
      .toSQL();
    expect(sql).toMatch(/order by "history"\."id" desc limit 12$/);
    expect(params).toEqual([]);
  });

  it("refuses a count that is not a whole number of rows", () => {
    const order = asc(schema.history.id);
    expect(() => orderedLimit(order, -1)).toThrow(RangeError);
    expect(() => orderedLimit(order, 2.5)).toThrow("a row limit must be a whole number ≥ 0, not 2.5");
    expect(() => orderedLimit(order, Number.NaN)).toThrow(RangeError);
  });
});

describe("preparedPer", () => {
  it("builds one statement per key and reuses it", () => {
    const built: number[] = [];
    const statementFor = preparedPer((limit: number) => {
      built.push(limit);
      return { limit };
    });
    expect(statementFor(5)).toBe(statementFor(5));
    expect(statementFor(20).limit).toBe(20);
    expect(built).toEqual([5, 20]);
  });
});
