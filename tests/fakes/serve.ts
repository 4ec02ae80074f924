/**
 * Starts the fake upstreams by hand, for trying the bot locally without real Telegram or model accounts:
 * `node tests/fakes/serve.ts [port]`, then point TELEGRAM_API_BASE_URL, OPENAI_BASE_URL and ANTHROPIC_BASE_URL in
 * .dev.vars at it. `GET /__control/requests` shows what the bot sent.
 */
import { startFakes } from "./server.ts";

const port = Number(process.argv[2] ?? 0);
const fakes = await startFakes({ port });
console.log(`fakes on ${fakes.url}: ${fakes.url}/telegram, ${fakes.url}/openai/v1, ${fakes.url}/anthropic`);
process.on("SIGINT", () => void fakes.close().then(() => process.exit(0)));
process.on("SIGTERM", () => void fakes.close().then(() => process.exit(0)));
