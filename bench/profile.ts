/**
 * `node bench/profile.ts [seconds]`: a CPU profile of the Worker under `wrangler dev` while the instant-model
 * throughput load runs, through the runtime's inspector. Writes bench/results/profile.cpuprofile (open it in Chrome
 * DevTools) and prints the functions with the most self time.
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { startFakes } from "../tests/fakes/server.ts";
import { newestDevBundle, startBot } from "./bot.ts";
import { connectProfiler, processCpuMs } from "./cpu.ts";
import { hotFunctions } from "./hot.ts";

const inspectorPort = 9339;
const fakes = await startFakes({ recordRequests: false });
// Unminified, so the profile names our functions.
const bot = await startBot(fakes.url, { inspectorPort, minify: false });
const profiler = await connectProfiler(inspectorPort);

let update = 1;
const post = async (chat: number, text: string) => {
  const response = await fetch(`${bot.url}/telegram/webhook`, {
    method: "POST",
    headers: { "x-telegram-bot-api-secret-token": bot.secret, "content-type": "application/json" },
    body: JSON.stringify({
      update_id: update++,
      message: {
        message_id: update,
        date: 1,
        chat: { id: chat, type: "private" },
        from: { id: chat, is_bot: false, first_name: "B" },
        text,
      },
    }),
  });
  await response.text();
};
for (let index = 0; index < 20; index++) await post(1, `warm ${index}`);
const load = process.argv[3] ?? "warm";
// The chats the paced load uses exist before profiling starts.
if (load === "paced") for (let chat = 0; chat < 200; chat++) await post(20_000 + chat, "warm");
await new Promise((resolve) => setTimeout(resolve, 1000));

await profiler.start();
const processBefore = processCpuMs(bot.processGroup) ?? Number.NaN;
const seconds = Number(process.argv[2] ?? 5);
// "paced": 100/s over warm chats, 1 s model; "new": new chats, two messages each, 1 s model; else 20 warm chats, instant.
const until = Date.now() + seconds * 1000;
let sent = 0;
if (load === "paced") {
  // 100 updates/s over 200 warm chats, 1 s model: the paced ack scenario.
  fakes.options.modelDelayMs = 1000;
  const started = performance.now();
  const total = seconds * 100;
  await Promise.all(
    Array.from({ length: total }, async (_, index) => {
      const wait = started + index * 10 - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      await post(20_000 + (index % 200), "paced");
      sent++;
    }),
  );
} else if (load === "new") {
  fakes.options.modelDelayMs = 1000;
  let chat = 10_000;
  await Promise.all(
    Array.from({ length: 40 }, async () => {
      while (Date.now() < until) {
        const id = chat++;
        await post(id, "first");
        await post(id, "second");
        sent += 2;
      }
    }),
  );
} else {
  await Promise.all(
    Array.from({ length: 20 }, async (_, worker) => {
      for (let index = 0; Date.now() < until; index++, sent++) await post(1000 + worker, `m${index}`);
    }),
  );
}
console.log(`${sent} updates in ${seconds} s`);
const processMs = (processCpuMs(bot.processGroup) ?? Number.NaN) - processBefore;
const { profile, cpuMs } = await profiler.stop();
console.log(`CPU ${cpuMs.toFixed(0)} ms: ${(cpuMs / Math.max(1, sent)).toFixed(2)} ms per update`);
console.log(
  `workerd process CPU ${processMs.toFixed(0)} ms: ${(processMs / Math.max(1, sent)).toFixed(2)} ms per update`,
);
mkdirSync("bench/results", { recursive: true });
writeFileSync("bench/results/profile.cpuprofile", JSON.stringify(profile));
// The bundle the profile's line numbers refer to (wrangler removes its copy when it stops), for `bench/hot.ts --bundle`.
const bundle = newestDevBundle();
if (bundle) copyFileSync(bundle, "bench/results/profile-worker.js");
for (const hot of hotFunctions(profile, 30)) {
  console.log(
    `${(hot.share * 100).toFixed(1).padStart(5)}%  self ${hot.selfMs.toFixed(0).padStart(6)} ms  total ${hot.totalMs.toFixed(0).padStart(6)} ms  ${hot.name}`,
  );
}
profiler.close();
await bot.stop();
await fakes.close();
