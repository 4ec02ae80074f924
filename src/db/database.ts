import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";

/** The bot's D1 database through drizzle, for the entry points that hand repositories down (given their `env`). */
export function database(bindings: { DB: D1Database }): DrizzleD1Database {
  return drizzle(bindings.DB);
}
