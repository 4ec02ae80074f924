import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { ADMIN_TOKEN } from "./helpers.ts";

export const ORIGIN = "http://bot.test";

/** A browser of the console: keeps the session cookie and sends same-origin form posts. */
export class ConsoleBrowser {
  cookie: string | undefined;

  async get(path: string): Promise<Response> {
    return exports.default.fetch(`${ORIGIN}${path}`, {
      headers: this.cookie ? { cookie: this.cookie } : {},
      redirect: "manual",
    });
  }

  async post(path: string, form: Record<string, string>, origin: string | null = ORIGIN): Promise<Response> {
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
    if (origin !== null) headers.origin = origin;
    if (this.cookie) headers.cookie = this.cookie;
    const response = await exports.default.fetch(`${ORIGIN}${path}`, {
      method: "POST",
      headers,
      body: new URLSearchParams(form).toString(),
      redirect: "manual",
    });
    const setCookie = response.headers.get("set-cookie");
    if (setCookie) this.cookie = setCookie.split(";")[0];
    return response;
  }

  async signIn(): Promise<void> {
    const response = await this.post("/console/sign-in", { token: ADMIN_TOKEN });
    expect(response.status).toBe(303);
  }
}
