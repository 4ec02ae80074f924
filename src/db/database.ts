import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import type { Env } from "../env.ts";

/** The bot's D1 database through drizzle, for the entry points that hand repositories down. */
export function database(env: Env): DrizzleD1Database {
  return drizzle(env.DB);
}
