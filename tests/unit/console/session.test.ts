import { Hono } from "hono";
import { getSignedCookie, setSignedCookie } from "hono/cookie";
import { describe, expect, it } from "vitest";
import { hmacSha256 } from "../../../src/config/hmac.ts";
import { endSession, hasSession, startSession } from "../../../src/console/session.ts";

const TOKEN = "admin-token-0123456789abcdefghijklmnop";
const NOW = Date.UTC(2026, 10, 28, 12);
const HALF_A_DAY = 12 * 60 * 60 * 1000;

/** The console's session calls behind three routes, each at a time the test chooses. */
function app(token = TOKEN) {
  return new Hono()
    .get("/start", async (c) => {
      await startSession(c, token, Number(c.req.query("at")));
      return c.body(null, 204);
    })
    .get("/check", async (c) => c.text(String(await hasSession(c, token, Number(c.req.query("at"))))))
    .get("/end", (c) => {
      endSession(c);
      return c.body(null, 204);
    });
}

async function cookieFrom(response: Response): Promise<string> {
  return (response.headers.get("set-cookie") ?? "").split(";")[0]!;
}

async function check(cookie: string, at: number, token = TOKEN): Promise<string> {
  return (await app(token).request(`/check?at=${at}`, { headers: { cookie } })).text();
}

describe("the console's session cookie", () => {
  it("is HttpOnly, Secure, SameSite=Strict, sent only to /console, and good for half a day", async () => {
    const response = await app().request(`/start?at=${NOW}`);
    expect(response.headers.get("set-cookie")).toMatch(
      /^console_session=v1\.\d{13}\.[\w%]+; Max-Age=43200; Path=\/console; HttpOnly; Secure; SameSite=Strict$/,
    );
    const cookie = await cookieFrom(response);
    expect(await check(cookie, NOW + HALF_A_DAY - 1)).toBe("true");
    expect(await check(cookie, NOW + HALF_A_DAY)).toBe("false");
    // Among other cookies, in any order.
    expect(await check(`theme=dark; ${cookie}; x=1`, NOW)).toBe("true");
  });

  it("is no session when signed under another token, tampered with, malformed or absent", async () => {
    const cookie = await cookieFrom(await app().request(`/start?at=${NOW}`));
    expect(await check(cookie, NOW, `${TOKEN}-rotated`)).toBe("false");
    expect(await check(cookie.replace(/v1\.\d+/, `v1.${NOW + 10 * HALF_A_DAY}`), NOW)).toBe("false");
    const signature = /\.([^.]+)$/.exec(decodeURIComponent(cookie))![1]!;
    const flipped = `${signature[0] === "A" ? "B" : "A"}${signature.slice(1)}`;
    expect(await check(cookie.replace(encodeURIComponent(signature), encodeURIComponent(flipped)), NOW)).toBe("false");
    for (const bad of ["console_session=v1.1", "console_session=%E0%A4%A", "console_session=", "other=1", ""]) {
      expect(await check(bad, NOW), bad).toBe("false");
    }
  });

  it("reads and writes the form hono's signed cookies have, so sessions made before this module stay good", async () => {
    const key = await hmacSha256(TOKEN, "telegram-edge-agent console session v1");
    const honoApp = new Hono()
      .get("/set", async (c) => {
        await setSignedCookie(c, "console_session", `v1.${NOW + HALF_A_DAY}`, key, { path: "/console" });
        return c.body(null, 204);
      })
      .get("/get", async (c) => c.text(String(await getSignedCookie(c, key, "console_session"))));
    const made = await cookieFrom(await honoApp.request("/set"));
    expect(await check(made, NOW)).toBe("true");
    const ours = await cookieFrom(await app().request(`/start?at=${NOW}`));
    expect(await (await honoApp.request("/get", { headers: { cookie: ours } })).text()).toBe(`v1.${NOW + HALF_A_DAY}`);
  });

  it("ends with an empty cookie that expires at once, with the same attributes", async () => {
    const response = await app().request("/end");
    expect(response.headers.get("set-cookie")).toBe(
      "console_session=; Max-Age=0; Path=/console; HttpOnly; Secure; SameSite=Strict",
    );
  });
});
