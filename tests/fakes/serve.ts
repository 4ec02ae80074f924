/**
 * Starts the fake upstreams by hand, for trying the bot locally without real Telegram or model accounts:
 * `node tests/fakes/serve.ts [port]`, then point TELEGRAM_API_BASE_URL, OPENAI_BASE_URL and ANTHROPIC_BASE_URL in
 * .dev.vars at it. `GET /__control/requests` shows what the bot sent.
 */
import { describeViolation } from "../../scripts/bot-api/vocabulary.ts";
import { startFakes } from "./server.ts";

const port = Number(process.argv[2] ?? 0);
const fakes = await startFakes({ port });
console.log(`fakes on ${fakes.url}: ${fakes.url}/telegram, ${fakes.url}/openai/v1, ${fakes.url}/anthropic`);
// What Telegram would refuse, or not know, is worth seeing as it happens.
let violationsSeen = 0;
fakes.onRequest = (request) => {
  if (request.refusal && !request.scripted)
    console.warn(`[fakes] Telegram refused ${request.method}: ${request.refusal}`);
  for (; violationsSeen < fakes.telegram.violations.length; violationsSeen++) {
    console.warn(`[fakes] Telegram would not know: ${describeViolation(fakes.telegram.violations[violationsSeen]!)}`);
  }
};
process.on("SIGINT", () => void fakes.close().then(() => process.exit(0)));
process.on("SIGTERM", () => void fakes.close().then(() => process.exit(0)));
