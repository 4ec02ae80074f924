import { env, exports } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import {
  admin,
  fakes,
  openaiText,
  openaiToolCalls,
  PRIVATE_CHAT,
  postUpdate,
  say,
  sentText,
  textUpdate,
} from "./helpers.ts";

/**
 * Chats' MCP servers against a real MCP server (the official SDK's, tests/fakes/mcp-server.ts) on 127.0.0.1.
 * Listings are cached per isolate: each test names its server by a URL of its own (a query string), so no test sees
 * another's cached listing.
 */

type ChatMessages = { role: string; content: unknown; tool_calls?: unknown }[];
type OpenAiTool = { type: "function"; function: { name: string; parameters: Record<string, unknown> } };
type McpLog = {
  calls: { path: string; tool: string; arguments: unknown }[];
  requests: { path: string; method: string; authorized: boolean; rpcMethod?: string; query: string }[];
};

let testNumber = 0;
let tag = "";
beforeEach(async () => {
  tag = `t${++testNumber}-${Date.now()}`;
  await fetch(`${env.MCP_FAKE_URL}/__mcp/reset`, { method: "POST" });
});

const openServer = (name = "calc") => ({ name, url: `${env.MCP_FAKE_URL}/open/mcp?${tag}` });
const secureServer = (secret = "MCP_TEST_TOKEN") => ({
  name: "secure",
  url: `${env.MCP_FAKE_URL}/secure/mcp?${tag}`,
  headers: { authorization: { secret, prefix: "Bearer " }, "x-client": { value: "telegram-bot" } },
});

async function mcpLog(): Promise<McpLog> {
  return (await fetch(`${env.MCP_FAKE_URL}/__mcp/calls`)).json();
}

async function configure(config: unknown): Promise<Response> {
  return admin(`/chats/${PRIVATE_CHAT}/config`, { method: "PUT", body: JSON.stringify(config) });
}

async function openaiRequests(): Promise<{ messages: ChatMessages; tools?: OpenAiTool[] }[]> {
  return (await fakes.requests("openai")).map((request) => request.body as { messages: ChatMessages });
}

const toolNames = (body: { tools?: OpenAiTool[] }) => (body.tools ?? []).map((tool) => tool.function.name);
const toolResults = (body: { messages: ChatMessages }) =>
  body.messages.filter((message) => message.role === "tool").map((message) => String(message.content));

describe("a chat's MCP server", () => {
  it("offers its tools, namespaced, and an OpenAI chat calls one through the MCP client", async () => {
    expect((await configure({ mcpServers: [openServer()] })).status).toBe(200);
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "calc__add", arguments: { a: 2, b: 3 } }]),
      openaiText("Two and three make 5."),
    );
    const answer = await say("what is 2 + 3?", { count: 2 });
    expect(sentText(answer)).toBe("Two and three make 5.");

    const [first, second] = await openaiRequests();
    const names = toolNames(first!);
    expect(names).toEqual(expect.arrayContaining(["remember", "calc__add", "calc__long_text", "calc__fail"]));
    // A tool whose name cannot be offered (a dot) is left out, not sent for the provider to refuse.
    expect(names.filter((name) => name.includes("dotted"))).toEqual([]);
    const add = first!.tools!.find((tool) => tool.function.name === "calc__add")!;
    expect(add.function.parameters).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    expect(toolResults(second!)).toEqual(["The sum is 5."]);

    const log = await mcpLog();
    expect(log.calls).toEqual([{ path: "/open/mcp", tool: "add", arguments: { a: 2, b: 3 } }]);
    expect(log.requests.map((request) => request.rpcMethod).filter(Boolean)).toEqual(
      expect.arrayContaining(["initialize", "tools/list", "tools/call"]),
    );
  });

  it("checks arguments against the server's schema before calling out, and caps a long result", async () => {
    await configure({ mcpServers: [openServer()] });
    await fakes.script(
      "openai",
      openaiToolCalls([
        { name: "calc__add", arguments: { a: "two", b: 3 } },
        { name: "calc__long_text", arguments: { characters: 30_000 } },
        { name: "calc__fail", arguments: {} },
      ]),
      openaiText("Done."),
    );
    await say("try things", { count: 2 });
    const results = toolResults((await openaiRequests())[1]!);
    expect(results[0]).toMatch(/^Error: Invalid arguments for "calc__add": .*\/a/);
    expect(results[1]!.length).toBeLessThan(20_100);
    expect(results[1]).toMatch(/^x{20000}\n\n\[truncated at 20000 characters\]$/);
    expect(results[2]).toBe("Error: the fake failed on purpose");
    // The refused call never reached the server.
    expect((await mcpLog()).calls.map((call) => call.tool)).toEqual(["long_text", "fail"]);
  });

  it("honours the chat's tool allowlist, by tool or by server__*", async () => {
    await configure({ tools: ["recall", "calc__add"], mcpServers: [openServer()] });
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "calc__fail", arguments: {} }]),
      openaiText("It is not enabled."),
    );
    await say("fail please", { count: 2 });
    const [first, second] = await openaiRequests();
    expect(toolNames(first!).sort()).toEqual(["calc__add", "recall"]);
    expect(toolResults(second!)).toEqual(['Error: The tool "calc__fail" is not enabled in this chat.']);
    expect((await mcpLog()).calls).toEqual([]);

    await configure({ tools: ["calc__*"], mcpServers: [openServer()] });
    await fakes.script("openai", openaiText("ok"));
    await say("list", { count: 3 });
    expect(toolNames((await openaiRequests())[2]!).sort()).toEqual([
      "calc__add",
      "calc__fail",
      "calc__long_text",
      "calc__post_note",
    ]);

    // An allowlist entry must name one of the chat's servers.
    const refused = await configure({ tools: ["search__*"], mcpServers: [openServer()] });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain("no MCP server named search");
  });

  it("ends a stateful server's session when the turn is over", async () => {
    await configure({ mcpServers: [{ name: "calc", url: `${env.MCP_FAKE_URL}/stateful/mcp?${tag}` }] });
    await fakes.script(
      "openai",
      openaiToolCalls([{ name: "calc__add", arguments: { a: 20, b: 22 } }]),
      openaiText("42."),
    );
    await say("add", { count: 2 });
    expect(toolResults((await openaiRequests())[1]!)).toEqual(["The sum is 42."]);
    await expect
      .poll(
        async () => (await mcpLog()).requests.filter((request) => request.path === "/stateful/mcp").at(-1)?.method,
        {
          timeout: 10_000,
        },
      )
      .toBe("DELETE");
  });

  it("lists a server once and uses the cached list in later turns", async () => {
    await configure({ mcpServers: [openServer()] });
    await fakes.script("openai", openaiText("one"), openaiText("two"));
    await say("first", { count: 1 });
    await say("second", { count: 2 });
    const [first, second] = await openaiRequests();
    expect(toolNames(second!)).toEqual(toolNames(first!));
    expect(toolNames(second!)).toContain("calc__add");
    // No tool was called: the second turn made no request to the server at all.
    const listings = (await mcpLog()).requests.filter((request) => request.rpcMethod === "tools/list");
    expect(listings).toHaveLength(1);
  });
});

describe("a server that is down", () => {
  it("loses its tools for the turn, with a note to the model; the turn and the other server go on", async () => {
    await configure({ mcpServers: [{ name: "down", url: `http://127.0.0.1:1/mcp?${tag}` }, openServer()] });
    await fakes.script("openai", openaiText("Still here."));
    const answer = await say("hello");
    expect(sentText(answer)).toBe("Still here.");
    const [first] = await openaiRequests();
    const names = toolNames(first!);
    expect(names).toContain("calc__add");
    expect(names.some((name) => name.startsWith("down__"))).toBe(false);
    const system = String(first!.messages[0]!.content);
    expect(first!.messages[0]!.role).toBe("system");
    expect(system).toContain('The MCP server "down" is unavailable in this turn');
    expect(system).not.toContain('The MCP server "calc"');
  });

  it("that hangs costs one turn its timeout; later turns skip it at once for a while", async () => {
    await configure({ mcpServers: [{ name: "slow", url: `${env.MCP_FAKE_URL}/hang/mcp?${tag}` }, openServer()] });
    await fakes.script("openai", openaiText("First."), openaiText("Second."));
    await say("one", { count: 1 });
    await say("two", { count: 2 });
    const [first, second] = await openaiRequests();
    for (const body of [first!, second!]) {
      expect(String(body.messages[0]!.content)).toContain('The MCP server "slow" is unavailable in this turn');
      expect(toolNames(body)).toContain("calc__add");
    }
    expect(String(first!.messages[0]!.content)).toMatch(/slow.*could not connect: .*(time|abort)/i);
    // The second turn did not ask the hanging server again.
    const hung = (await mcpLog()).requests.filter((request) => request.path === "/hang/mcp");
    expect(hung).toHaveLength(1);
  });

  it("is reported by the admin API, as is a secret that is not set", async () => {
    await configure({
      mcpServers: [{ name: "down", url: `http://127.0.0.1:1/mcp?${tag}` }, secureServer("MCP_NOT_SET")],
    });
    const listed = await admin(`/chats/${PRIVATE_CHAT}/mcp`);
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as { servers: { name: string; state: string; problem?: string }[] };
    expect(body.servers).toEqual([
      expect.objectContaining({ name: "down", state: "unavailable", problem: expect.stringContaining("could not") }),
      expect.objectContaining({ name: "secure", state: "unavailable", problem: "the secret MCP_NOT_SET is not set" }),
    ]);
  });
});

describe("secret headers", () => {
  it("are resolved by name from the Worker's secrets, never stored in KV or shown by the admin API", async () => {
    const put = await configure({ mcpServers: [secureServer()] });
    expect(put.status).toBe(200);
    const stored = await env.CONFIG.get(`chat-config:${PRIVATE_CHAT}`, "text");
    expect(stored).toContain("MCP_TEST_TOKEN");
    expect(stored).not.toContain(env.MCP_TEST_TOKEN);
    expect(JSON.stringify(await put.json())).not.toContain(env.MCP_TEST_TOKEN);

    const listed = await admin(`/chats/${PRIVATE_CHAT}/mcp?refresh=1`);
    const text = await listed.text();
    expect(listed.status).toBe(200);
    expect(text).not.toContain(env.MCP_TEST_TOKEN);
    expect(JSON.parse(text)).toMatchObject({
      chatId: PRIVATE_CHAT,
      servers: [
        {
          name: "secure",
          state: "ok",
          headers: ["authorization", "x-client"],
          tools: [{ name: "secure__whoami", description: "Says who the caller is.", allowed: true }],
        },
      ],
    });
    const config = await (await admin(`/chats/${PRIVATE_CHAT}/config?effective=1`)).text();
    expect(config).not.toContain(env.MCP_TEST_TOKEN);

    await fakes.script("openai", openaiToolCalls([{ name: "secure__whoami", arguments: {} }]), openaiText("Verified."));
    await say("who am I to the server?", { count: 2 });
    expect(toolResults((await openaiRequests())[1]!)).toEqual(["You are the bot, with the right token."]);
    const log = await mcpLog();
    expect(log.calls).toEqual([{ path: "/secure/mcp", tool: "whoami", arguments: {} }]);
    expect(log.requests.every((request) => request.authorized)).toBe(true);
  });

  it("refuses a credential in clear, a secret outside MCP_*, a plain-http remote URL and a bad server name", async () => {
    const cases: [unknown, RegExp][] = [
      [
        { name: "a", url: "https://mcp.example.com/mcp", headers: { authorization: { value: "Bearer abc" } } },
        /credential/,
      ],
      [{ name: "a", url: "https://mcp.example.com/mcp", headers: { "x-api-key": { value: "abc" } } }, /credential/],
      [
        { name: "a", url: "https://mcp.example.com/mcp", headers: { authorization: { secret: "TELEGRAM_BOT_TOKEN" } } },
        /MCP_/,
      ],
      [{ name: "a", url: "http://mcp.example.com/mcp" }, /https/],
      [{ name: "Bad_Name", url: "https://mcp.example.com/mcp" }, /a-z/],
    ];
    for (const [server, message] of cases) {
      const response = await configure({ mcpServers: [server] });
      expect(response.status, JSON.stringify(server)).toBe(400);
      expect(JSON.stringify(await response.json())).toMatch(message);
    }
    const twice = await configure({ mcpServers: [openServer(), openServer()] });
    expect(twice.status).toBe(400);
    expect(await env.CONFIG.get(`chat-config:${PRIVATE_CHAT}`)).toBeNull();
  });
});

describe("from the claude-agent container", () => {
  it("the run payload carries the MCP tools and the tool bridge's callback runs them", async () => {
    await configure({ provider: "claude-agent", mcpServers: [openServer()] });
    await fakes.script("runner", {
      lines: [{ line: JSON.stringify({ type: "session_init", sessionId: "s" }) }],
      hang: true,
    });
    await postUpdate(textUpdate("add 1 and 2 in the container"));
    const [request] = await fakes.wait("runner");
    const payload = request!.body as {
      tools: { name: string; inputSchema: Record<string, unknown> }[];
      toolCallback: { token: string };
    };
    const add = payload.tools.find((tool) => tool.name === "calc__add");
    expect(add?.inputSchema).toMatchObject({ type: "object", required: ["a", "b"] });

    // What container/mcp-bridge.ts posts for `mcp__bot__calc__add`.
    const call = await exports.default.fetch(
      `http://bot.test/agent/tools/${encodeURIComponent(`chat:${PRIVATE_CHAT}`)}`,
      {
        method: "POST",
        headers: { authorization: `Bearer ${payload.toolCallback.token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "calc__add", arguments: JSON.stringify({ a: 1, b: 2 }) }),
      },
    );
    expect(call.status).toBe(200);
    expect(await call.json()).toEqual({ content: "The sum is 3.", isError: false });
    expect((await mcpLog()).calls).toEqual([{ path: "/open/mcp", tool: "add", arguments: { a: 1, b: 2 } }]);
    // The silent runner times out; the turn ends with an error message.
    await fakes.wait("telegram", { method: "sendMessage", count: 1 });
  });
});
