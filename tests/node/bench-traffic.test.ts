import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Bot } from "../../bench/bot.ts";
import { ChatLanes, probeHealth, sendRounds } from "../../bench/traffic.ts";

/** A webhook that answers each update after a delay and records, per chat, the texts in arrival order and overlaps. */
async function recordingWebhook(delayMs: (text: string) => number) {
  const arrived = new Map<number, string[]>();
  const inFlight = new Map<number, number>();
  let overlaps = 0;
  const server: Server = createServer(async (request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const update = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      message: { chat: { id: number }; text: string };
    };
    const { id } = update.message.chat;
    const text = update.message.text;
    arrived.set(id, [...(arrived.get(id) ?? []), text]);
    if ((inFlight.get(id) ?? 0) > 0) overlaps++;
    inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
    await new Promise((resolve) => setTimeout(resolve, delayMs(text)));
    inFlight.set(id, inFlight.get(id)! - 1);
    response.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
  });
  const { bot, close } = await listening(server);
  return { bot, arrived, overlaps: () => overlaps, close };
}

/** The server listening on a free port of 127.0.0.1, as the bot the bench's traffic is sent to. */
async function listening(server: Server): Promise<{ bot: Bot; close: () => Promise<unknown> }> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const bot: Bot = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    secret: "s",
    adminToken: "a",
    processGroup: 0,
    stop: async () => undefined,
  };
  return { bot, close: () => new Promise((resolve) => server.close(resolve)) };
}

let close: (() => Promise<unknown>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe("bench/traffic.ts", () => {
  it("sendRounds sends a chat's updates one after another, in order, with more connections than chats", async () => {
    // A chat's first update is slow: its second, picked up at once by another connection, must still wait for it.
    const webhook = await recordingWebhook((text) => (text.endsWith("-0") ? 60 : 1));
    close = webhook.close;
    const chats = [7001, 7002, 7003];
    const sent = await sendRounds(webhook.bot, chats, 4, 40);
    expect(webhook.overlaps()).toBe(0);
    for (const chatId of chats) {
      expect(sent.get(chatId)).toEqual([0, 1, 2, 3].map((sequence) => `m${chatId}-${sequence}`));
      expect(webhook.arrived.get(chatId)).toEqual(sent.get(chatId));
    }
  });

  it("probeHealth sends each probe at its time while earlier ones are held, so a stall counts as often as it lasts", async () => {
    // /health stalls for 200 ms once: probes sent one after another would count it once; these count every probe
    // that was due during it, each with the part of the stall it waited through.
    let stallUntil = 0;
    const server: Server = createServer((_request, response) => {
      const wait = Math.max(0, stallUntil - performance.now());
      setTimeout(() => response.writeHead(200).end("ok"), wait);
    });
    const { bot, close: closeServer } = await listening(server);
    close = closeServer;
    const probe = probeHealth(bot, 10);
    await new Promise((resolve) => setTimeout(resolve, 100));
    stallUntil = performance.now() + 200;
    await new Promise((resolve) => setTimeout(resolve, 400));
    const times = await probe.stop();
    expect(times.length).toBeGreaterThanOrEqual(40);
    // At 10 ms apart, about 20 probes fall in the stall; sent one after another, one or two would.
    expect(times.filter((ms) => ms >= 50).length).toBeGreaterThanOrEqual(10);
  });

  it("ChatLanes runs a chat's work in the order it was asked for, and other chats' alongside", async () => {
    const lanes = new ChatLanes();
    const order: string[] = [];
    const step = (name: string, ms: number) => async () => {
      order.push(`${name} starts`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      order.push(`${name} ends`);
    };
    await Promise.all([lanes.after(1, step("a1", 30)), lanes.after(2, step("b1", 5)), lanes.after(1, step("a2", 1))]);
    expect(order.indexOf("a2 starts")).toBeGreaterThan(order.indexOf("a1 ends"));
    expect(order.indexOf("b1 starts")).toBeLessThan(order.indexOf("a1 ends"));
  });

  it("ChatLanes goes on with a chat's next work after one failed", async () => {
    const lanes = new ChatLanes();
    const failed = lanes.after(1, async () => {
      throw new Error("refused");
    });
    await expect(failed).rejects.toThrow("refused");
    await expect(lanes.after(1, async () => "next")).resolves.toBe("next");
  });
});
