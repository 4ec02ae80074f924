import { z } from "zod";
import type { Env } from "../env.ts";
import { HttpError } from "../http-error.ts";
import { describeIssues } from "../tools/registry.ts";

const CHAT_KEY = /^chat:-?\d{1,16}(:topic:\d{1,16})?$/;
const MAX_BODY_BYTES = 256_000;
const callSchema = z.strictObject({ name: z.string().min(1).max(64), arguments: z.string().max(200_000) });

/**
 * A tool call from an agent runner, back to the chat object whose turn it serves: `POST /agent/tools/<chatKey>`
 * with `Authorization: Bearer <per-run token>` and `{ name, arguments }`. The object runs it with its own context
 * and authorization; a token that is not its running turn's is refused, so a runner can never act for another chat.
 */
export async function handleAgentToolCall(request: Request, env: Env, chatKey: string): Promise<Response> {
  if (!CHAT_KEY.test(chatKey)) throw new HttpError(404, "not_found", "No such chat.");
  const token = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  if (!token) throw new HttpError(401, "unauthorized", "Missing bearer token.");
  if (Number(request.headers.get("content-length") ?? 0) > MAX_BODY_BYTES)
    throw new HttpError(413, "too_large", "The call is too large.");
  const body = await request.text();
  if (body.length > MAX_BODY_BYTES) throw new HttpError(413, "too_large", "The call is too large.");
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    throw new HttpError(400, "invalid_json", "The body is not JSON.", undefined, { cause: error });
  }
  const call = callSchema.safeParse(json);
  if (!call.success) throw new HttpError(400, "invalid_request", describeIssues(call.error));
  const session = env.CHAT_SESSION.get(env.CHAT_SESSION.idFromName(chatKey));
  const outcome = await session.runRemoteTool(token, call.data.name, call.data.arguments);
  if (outcome === "unauthorized")
    throw new HttpError(401, "unauthorized", "No running turn with that token in this chat.");
  return Response.json(outcome);
}

/** The path part after `/agent/tools/`, for the container's outbound handler (which sees the raw request). */
export function chatKeyOfPath(pathname: string): string | undefined {
  const match = /^\/agent\/tools\/([^/]+)$/.exec(pathname);
  return match ? decodeURIComponent(match[1]!) : undefined;
}
