import { describe, expect, it } from "vitest";
import { mintRunToken, verifyRunToken } from "../../../src/protocol/run-token.ts";

const claims = { chatKey: "chat:1001", runId: "run-1", expiresAt: 2_000 };

describe("run tokens", () => {
  it("verify with the secret that minted them, until they expire", async () => {
    const token = await mintRunToken("bot-token", claims);
    expect(await verifyRunToken("bot-token", token, 1_999)).toEqual(claims);
    expect(await verifyRunToken("bot-token", token, 2_000)).toBeUndefined();
    expect(await verifyRunToken("another-bot-token", token, 1_000)).toBeUndefined();
  });

  it("refuse any change to the claims or the signature, and anything that is not a token", async () => {
    const token = await mintRunToken("bot-token", claims);
    const [version, payload, signature] = token.split(".") as [string, string, string];
    const otherChat = await mintRunToken("bot-token", { ...claims, chatKey: "chat:1002" });
    const swapped = `${version}.${otherChat.split(".")[1]}.${signature}`;
    for (const bad of [
      swapped,
      `${version}.${payload}.${signature.slice(0, -2)}AA`,
      `v2.${payload}.${signature}`,
      `${token}.extra`,
      "not a token",
      "",
      "f".repeat(64),
    ]) {
      expect(await verifyRunToken("bot-token", bad, 1_000), bad.slice(0, 30)).toBeUndefined();
    }
  });
});
