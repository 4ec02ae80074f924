import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { bearerTokenOf, requireBearer, secretsEqual } from "../../../../src/protocol/http/bearer.ts";
import { handleError } from "../../../../src/protocol/http/error.ts";
import { jsonBody } from "../../../../src/protocol/http/json-body.ts";
import { describeIssues, issueDetails } from "../../../../src/protocol/issues.ts";

const MAX_BYTES = 100;

const schema = z.object({
  name: z.string().min(1),
  count: z.number().int().nonnegative(),
  tags: z.array(z.string()).default([]),
});

/** A tiny app with the middleware under test, and handleError as every app of the project has it. */
function appWith() {
  const logged: string[] = [];
  const app = new Hono();
  app.onError((error, c) => handleError(error, c, (line) => logged.push(line)));
  app.post("/things", jsonBody(schema, { maxBytes: MAX_BYTES }), (c) => c.json({ received: c.req.valid("json") }));
  app.post(
    "/updates",
    jsonBody(schema, { maxBytes: MAX_BYTES, invalidCode: "not_an_update", invalidMessage: "Not a thing" }),
    (c) => c.text("ok"),
  );
  app.use(
    "/admin/*",
    requireBearer((presented) => secretsEqual(presented, "right-token-0123456789")),
  );
  app.get("/admin/status", (c) => c.json({ ok: true }));
  return { app, logged };
}

/**
 * A POST to the app. The middleware serves the Worker (workerd) and the agent runner (Node); this test runs in Node,
 * whose Request wants `duplex: "half"` with a stream body (workerd ignores it, and its types do not have it).
 */
const post = (app: Hono, body: BodyInit | null, headers: Record<string, string> = {}, path = "/things") =>
  app.request(path, { method: "POST", body, headers, duplex: "half" } as RequestInit);

const json = { "content-type": "application/json" };
const encoder = new TextEncoder();

/** A body that arrives in `chunks` pieces of `size` bytes with no declared length, counting what was pulled. */
function streamedBody(chunks: number, size: number) {
  const stats = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stats.pulled >= chunks) {
        controller.close();
        return;
      }
      stats.pulled++;
      controller.enqueue(encoder.encode(" ".repeat(size)));
    },
    cancel() {
      stats.cancelled = true;
    },
  });
  return { stream, stats };
}

describe("jsonBody", () => {
  it("passes the parsed value (defaults applied) to the handler", async () => {
    const { app } = appWith();
    const response = await post(app, JSON.stringify({ name: "a", count: 2 }), json);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: { name: "a", count: 2, tags: [] } });
  });

  it.each(["application/json; charset=utf-8", "APPLICATION/JSON", "application/vnd.api+json", "application/json ;x=y"])(
    "accepts the content type %s",
    async (type) => {
      const { app } = appWith();
      const response = await post(app, JSON.stringify({ name: "a", count: 1 }), { "content-type": type });
      expect(response.status).toBe(200);
    },
  );

  it.each([
    ["no content type", {}],
    ["text/plain", { "content-type": "text/plain" }],
    ["application/jsonp", { "content-type": "application/jsonp" }],
    ["application/x-www-form-urlencoded", { "content-type": "application/x-www-form-urlencoded" }],
    ["text/json", { "content-type": "text/json" }],
  ])("refuses %s with 415", async (_label, headers) => {
    const { app } = appWith();
    const response = await post(app, encoder.encode(JSON.stringify({ name: "a", count: 1 })), headers);
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({
      error: "unsupported_media_type",
      message: "Send the body as application/json.",
    });
  });

  it("refuses a body whose declared Content-Length is over the limit, with 413", async () => {
    const { app } = appWith();
    const response = await post(app, JSON.stringify({ name: "a", count: 1 }), {
      ...json,
      "content-length": String(MAX_BYTES + 1),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: "too_large",
      message: `The body is larger than ${MAX_BYTES} bytes.`,
    });
  });

  it("accepts a body of exactly maxBytes bytes and refuses one byte more", async () => {
    const { app } = appWith();
    const padded = (length: number) => {
      const base = JSON.stringify({ name: "a", count: 1 });
      return `${base.slice(0, -1)}${" ".repeat(length - base.length)}}`;
    };
    expect((await post(app, padded(MAX_BYTES), json)).status).toBe(200);
    expect((await post(app, padded(MAX_BYTES + 1), json)).status).toBe(413);
  });

  it("counts bytes, not characters", async () => {
    const { app } = appWith();
    // 60 characters of name, 120 bytes in UTF-8.
    const body = JSON.stringify({ name: "ü".repeat(60), count: 1 });
    expect(body.length).toBeLessThanOrEqual(MAX_BYTES);
    expect((await post(app, body, json)).status).toBe(413);
  });

  it("refuses a streamed body without a length once it passes the limit, and stops reading it", async () => {
    const { app } = appWith();
    const { stream, stats } = streamedBody(1000, 30);
    const response = await post(app, stream, json);
    expect(response.status).toBe(413);
    expect(stats.pulled).toBeLessThan(10);
    expect(stats.cancelled).toBe(true);
  });

  it("refuses a body longer than its declared Content-Length", async () => {
    // Over HTTP the framing stops at the declared length; a body built in-process can still lie, and is refused.
    const { app } = appWith();
    const { stream } = streamedBody(1000, 30);
    const response = await post(app, stream, { ...json, "content-length": "20" });
    expect(response.status).toBe(413);
  });

  it("counts the bytes of a declared body in UTF-8: over the limit refused, within it accepted", async () => {
    const { app } = appWith();
    const lying = new Blob([JSON.stringify({ name: "ü".repeat(60), count: 1 })]).stream();
    expect((await post(app, lying, { ...json, "content-length": "50" })).status).toBe(413);
    // 38 characters, 58 bytes: more characters than a third of the limit, so they are counted, and fit.
    const fitting = JSON.stringify({ name: "ü".repeat(20), count: 1 });
    expect((await post(app, fitting, json)).status).toBe(200);
  });

  it("reads a streamed body within the limit", async () => {
    const { app } = appWith();
    const text = JSON.stringify({ name: "streamed", count: 3 });
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(text.slice(0, 10)));
        controller.enqueue(encoder.encode(text.slice(10)));
        controller.close();
      },
    });
    const response = await post(app, stream, json);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: { name: "streamed", count: 3, tags: [] } });
  });

  it.each(["{not json", "", '{"name": "a",}', "undefined"])("refuses %j with 400 invalid_json", async (body) => {
    const { app } = appWith();
    const response = await post(app, body, json);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: "invalid_json", message: "The body is not JSON." });
  });

  it("refuses JSON the schema does not want with 400 invalid_request, naming each bad field", async () => {
    const { app, logged } = appWith();
    const response = await post(app, JSON.stringify({ name: "", count: 1.5, tags: ["ok", 7] }), json);
    expect(response.status).toBe(400);
    const body = (await response.json()) as {
      error: string;
      message: string;
      details: { field: string; problem: string }[];
    };
    expect(body.error).toBe("invalid_request");
    expect(new Set(body.details.map((detail) => detail.field))).toEqual(new Set(["name", "count", "tags.1"]));
    for (const detail of body.details) expect(detail.problem).toEqual(expect.any(String));
    for (const field of ["name", "count", "tags.1"]) expect(body.message).toContain(`${field}: `);
    expect(logged).toEqual([]);
  });

  it("names the whole body when it is not an object", async () => {
    const { app } = appWith();
    const response = await post(app, "[1, 2]", json);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { details: { field: string }[] };
    expect(body.details.map((detail) => detail.field)).toEqual(["(body)"]);
  });

  it("uses the route's own error code and message prefix", async () => {
    const { app } = appWith();
    const response = await post(app, JSON.stringify({ name: "a" }), json, "/updates");
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; message: string };
    expect(body.error).toBe("not_an_update");
    expect(body.message).toMatch(/^Not a thing: count: /);
  });
});

describe("issueDetails and describeIssues", () => {
  const manyBad = z.array(z.number()).safeParse(Array.from({ length: 30 }, (_, index) => `n${index}`));

  it("give one entry per issue, up to the limit", () => {
    if (manyBad.success) throw new Error("expected a failure");
    expect(issueDetails(manyBad.error)).toHaveLength(20);
    expect(issueDetails(manyBad.error, 3).map((detail) => detail.field)).toEqual(["0", "1", "2"]);
    expect(describeIssues(manyBad.error, 2)).toMatch(/^0: .+; 1: .+$/);
  });
});

describe("requireBearer", () => {
  it.each([
    ["no Authorization header", undefined],
    ["a wrong token", "Bearer wrong-token"],
    ["the right token with another scheme", "Basic right-token-0123456789"],
    ["an empty bearer", "Bearer "],
    ["the token and more", "Bearer right-token-0123456789 extra"],
    ["a prefix of the token", "Bearer right-token"],
  ])("refuses %s with 401", async (_label, authorization) => {
    const { app } = appWith();
    const response = await app.request("/admin/status", {
      headers: authorization === undefined ? {} : { authorization },
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: "unauthorized", message: "Missing or wrong bearer token." });
  });

  it.each(["Bearer right-token-0123456789", "bearer   right-token-0123456789  "])(
    "passes %j",
    async (authorization) => {
      const { app } = appWith();
      const response = await app.request("/admin/status", { headers: { authorization } });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ ok: true });
    },
  );

  it("reads the token of a bearer header", () => {
    expect(bearerTokenOf("Bearer abc")).toBe("abc");
    expect(bearerTokenOf("BEARER abc ")).toBe("abc");
    expect(bearerTokenOf("Bearer")).toBeUndefined();
    expect(bearerTokenOf("Token abc")).toBeUndefined();
    expect(bearerTokenOf(null)).toBeUndefined();
    expect(bearerTokenOf(undefined)).toBeUndefined();
  });
});
