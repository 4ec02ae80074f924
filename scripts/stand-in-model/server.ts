/**
 * A local stand-in for an OpenAI-compatible API, which `npm run dev` starts on 127.0.0.1 when `.dev.vars` has no model
 * key: `POST /v1/chat/completions` (streamed or not, with tool calls; see replies.ts for what it says),
 * `POST /v1/audio/speech` (a silent OGG/Opus voice message as long as the text would take to say) and
 * `POST /v1/audio/transcriptions` (it cannot hear: it reads the text the playground's 🎤 tucked into the file's OGG
 * comments, else says it cannot). No key is checked; it answers only on loopback. Plain, erasable TypeScript.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { multipartFields, readBodyBytes } from "../read-body.ts";
import { oggOpusComments, silentOggOpus } from "./ogg-opus.ts";
import { type ChatMessage, STAND_IN_MODEL, standInReply } from "./replies.ts";

export interface StandInModel {
  /** The API root to give the bot as OPENAI_BASE_URL (ends in /v1). */
  url: string;
  close(): Promise<void>;
}

/** How long the stand-in takes to "write" a streamed answer, so that drafts and edits can be seen. */
const STREAM_MS = 1200;

export async function startStandInModel(options: { port?: number } = {}): Promise<StandInModel> {
  const server = createServer(async (request, response) => {
    try {
      const path = new URL(request.url ?? "/", "http://stand-in").pathname;
      const bytes = await readBodyBytes(request);
      if (request.method === "GET" && path === "/v1/models") {
        return json(response, 200, { object: "list", data: [{ id: STAND_IN_MODEL, object: "model" }] });
      }
      if (request.method !== "POST") return json(response, 404, error("Unknown request"));
      if (path === "/v1/chat/completions") return await chat(response, parse(bytes));
      if (path === "/v1/audio/speech") return speech(response, parse(bytes));
      if (path === "/v1/audio/transcriptions") {
        return transcription(response, request.headers["content-type"] ?? "", bytes);
      }
      json(response, 404, error(`The stand-in model does not serve ${path}`));
    } catch (thrown) {
      json(response, 500, error(`The stand-in model failed: ${thrown instanceof Error ? thrown.message : thrown}`));
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function chat(response: ServerResponse, body: Record<string, unknown>): Promise<void> {
  const messages = Array.isArray(body.messages) ? (body.messages as ChatMessage[]) : [];
  if (messages.length === 0) return json(response, 400, error("'messages' is a required property"));
  const toolNames = (Array.isArray(body.tools) ? body.tools : []).map(
    (tool: { function?: { name?: string } }) => tool.function?.name ?? "",
  );
  const reply = standInReply(messages, toolNames);
  const id = `chatcmpl-standin-${Date.now()}`;
  const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  const message =
    reply.kind === "text"
      ? { role: "assistant", content: reply.text }
      : {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: `call_${Date.now()}`,
              type: "function",
              function: { name: reply.name, arguments: JSON.stringify(reply.arguments) },
            },
          ],
        };
  const finish = reply.kind === "text" ? "stop" : "tool_calls";
  if (body.stream !== true) {
    return json(response, 200, {
      id,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: STAND_IN_MODEL,
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    });
  }
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const chunk = (delta: unknown, finishReason: string | null, extra: object = {}) =>
    response.write(
      `data: ${JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created: Math.floor(Date.now() / 1000),
        model: STAND_IN_MODEL,
        choices: [{ index: 0, delta, finish_reason: finishReason }],
        ...extra,
      })}\n\n`,
    );
  chunk({ role: "assistant", content: "" }, null);
  if (reply.kind === "text") {
    const pieces = reply.text.match(/[\s\S]{1,40}/g) ?? [];
    for (const piece of pieces) {
      if (response.destroyed) return;
      chunk({ content: piece }, null);
      await new Promise((resolve) => setTimeout(resolve, STREAM_MS / Math.max(1, pieces.length)));
    }
  } else {
    chunk({ tool_calls: message.tool_calls?.map((call, index) => ({ index, ...call })) }, null);
  }
  chunk({}, finish, { usage });
  response.end("data: [DONE]\n\n");
}

function speech(response: ServerResponse, body: Record<string, unknown>): void {
  if (typeof body.input !== "string" || body.input === "") {
    json(response, 400, error("input is required"));
    return;
  }
  const audio = silentOggOpus({ seconds: Math.min(60, Math.max(1, body.input.length / 15)) });
  response.writeHead(200, { "content-type": "audio/ogg" });
  response.end(audio);
}

function transcription(response: ServerResponse, contentType: string, bytes: Uint8Array): void {
  const file = multipartFields(contentType, bytes).file;
  if (!file || typeof file === "string") {
    json(response, 400, error("file is required"));
    return;
  }
  const said = oggOpusComments(file.bytes).TRANSCRIPT;
  json(response, 200, {
    text: said ?? "(The stand-in model cannot hear. Add OPENAI_API_KEY to .dev.vars to transcribe voice notes.)",
  });
}

function parse(bytes: Uint8Array): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(bytes).toString("utf8"));
    return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function error(message: string): { error: { message: string; type: string } } {
  return { error: { message, type: "invalid_request_error" } };
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}
