import { defineConfig } from "drizzle-kit";

/** D1: `npm run db:generate` writes SQL migrations that wrangler applies (`wrangler d1 migrations apply`). */
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/d1-schema.ts",
  out: "./migrations",
});
