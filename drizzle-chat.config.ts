import { defineConfig } from "drizzle-kit";

/** The chat Durable Object's own SQLite: migrations bundled into the Worker and run when the object starts. */
export default defineConfig({
  dialect: "sqlite",
  driver: "durable-sqlite",
  schema: "./src/db/chat-schema.ts",
  out: "./src/db/chat-migrations",
});
