import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { TINY_PNG_BASE64 } from "../fakes/server.ts";
import { admin, fakes, PRIVATE_CHAT, postUpdate, textUpdate } from "./helpers.ts";

/**
 * Issue 40.3: caps hold under concurrency. The review's attack: an agent's tool path runs remote calls concurrently,
 * and a cap checked before and recorded after let 8 parallel generate_image calls through against IMAGES_PER_TURN=4.
 */
const call = (token: string, body: unknown) =>
  exports.default.fetch(`http://bot.test/agent/tools/${encodeURIComponent(`chat:${PRIVATE_CHAT}`)}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("security: paid calls reserve before they run", () => {
  it("8 parallel generate_image calls with a run's token against 4 images per message: 4 run and are charged", async () => {
    await admin(`/chats/${PRIVATE_CHAT}/config`, {
      method: "PUT",
      body: JSON.stringify({ provider: "claude-agent", limits: { imagesPerTurn: 4 } }),
    });
    await fakes.script("runner", {
      lines: [{ line: JSON.stringify({ type: "session_init", sessionId: "s" }) }],
      hang: true,
    });
    // Each image takes a while, so that all eight calls are in flight together.
    const slowImage = {
      path: "/openai/v1/images/generations",
      delayMs: 400,
      body: { created: 1, data: [{ b64_json: TINY_PNG_BASE64 }] },
    };
    await fakes.script("openai", ...Array.from({ length: 8 }, () => slowImage));
    await postUpdate(textUpdate("draw eight cats"));
    const [request] = await fakes.wait("runner");
    const token = (request!.body as { toolCallback: { token: string } }).toolCallback.token;

    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        call(token, { name: "generate_image", arguments: JSON.stringify({ prompt: `cat ${index}` }) }).then(
          async (response) => (await response.json()) as { content: string; isError: boolean },
        ),
      ),
    );
    const generated = (await fakes.requests("openai")).filter((call) => call.path.endsWith("/images/generations"));
    expect(generated.length).toBeLessThanOrEqual(4);
    expect(outcomes.filter((outcome) => !outcome.isError)).toHaveLength(generated.length);
    expect(outcomes.filter((outcome) => outcome.isError).map((outcome) => outcome.content)).toContain(
      "Error: One message may use at most 4 images in this chat.",
    );
  });
});
