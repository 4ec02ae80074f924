import type { ApiMethods, ApiResponse } from "grammy/types";

/**
 * The Bot API calls the bot makes, over fetch. Written here rather than with grammY's `Api`: its web build cannot be
 * tree-shaken (every Bot API method, the webhook adapters for a dozen frameworks, its filter queries and a bundled
 * `debug`) and is 12 KiB gzip of the Worker's 250 KiB budget (issue 41) for the fifteen methods used here; grammY's
 * types (type-only imports, nothing bundled) still type every payload and result. What applies to every call is a
 * transformer, as in grammY: `previous(method, payload, signal)` makes the call (or the next transformer does).
 */

/** A file to upload: its bytes and the name Telegram shows. */
export class InputFile {
  constructor(
    readonly bytes: Uint8Array,
    readonly fileName: string,
  ) {}
}

type Methods = ApiMethods;
type Method = keyof Methods & string;
type Payload<M extends Method> = Parameters<Methods[M]>[0];
type Result<M extends Method> = ReturnType<Methods[M]>;
type Other<M extends Method, Given extends string> = Omit<NonNullable<Payload<M>>, Given>;

/** One call as a transformer sees it: the method, its payload (never mutated), the caller's signal. */
export type ApiCall = (
  method: string,
  payload: Record<string, unknown>,
  signal?: AbortSignal,
) => Promise<ApiResponse<unknown>>;
export type Transformer = (
  previous: ApiCall,
  method: string,
  payload: Record<string, unknown>,
  signal?: AbortSignal,
) => Promise<ApiResponse<unknown>>;

/** Telegram answered, and refused the call (`ok: false`): its code, its words, and its parameters (`retry_after`). */
export class BotApiError extends Error {
  override readonly name = "BotApiError";
  readonly error_code: number;
  readonly description: string;
  readonly parameters: { retry_after?: number; migrate_to_chat_id?: number };
  readonly method: string;

  constructor(method: string, response: { error_code: number; description: string; parameters?: object }) {
    super(`Call to '${method}' failed! (${response.error_code}: ${response.description})`);
    this.method = method;
    this.error_code = response.error_code;
    this.description = response.description;
    this.parameters = response.parameters ?? {};
  }
}

/** The call got no Bot API answer: a timeout, a dropped connection, or something that is not its JSON (`cause`). */
export class BotApiHttpError extends Error {
  override readonly name = "BotApiHttpError";

  constructor(method: string, cause: unknown) {
    super(`Network request for '${method}' failed!`, { cause });
  }
}

export interface BotApiOptions {
  /** The Bot API server, `https://api.telegram.org` or another. */
  apiRoot: string;
  /** A call Telegram has not answered in this long fails with a BotApiHttpError. */
  timeoutSeconds: number;
}

export class BotApi {
  private readonly transformers: Transformer[] = [];
  readonly config = {
    /** Adds transformers; the one added last sees a call first (as grammY orders them). */
    use: (...transformers: Transformer[]): void => {
      this.transformers.push(...transformers);
    },
  };

  constructor(
    private readonly token: string,
    private readonly options: BotApiOptions,
  ) {}

  /** Any method, its payload typed by grammY's types. */
  async call<M extends Method>(method: M, payload: Payload<M>, signal?: AbortSignal): Promise<Awaited<Result<M>>> {
    return (await this.callByName(method, (payload ?? {}) as Record<string, unknown>, signal)) as Awaited<Result<M>>;
  }

  /**
   * A method grammY's types do not know yet (Bot API 10.4-10.5: bot-api-10-5.ts types them), through the same
   * transformers; its result as Telegram sent it.
   */
  async callByName(method: string, payload: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    const chain = this.transformers.reduce<ApiCall>(
      (previous, transformer) => (name, body, abort) => transformer(previous, name, body, abort),
      (name, body, abort) => this.fetchCall(name, body, abort),
    );
    const response = await chain(method, payload, signal);
    if (!response.ok) throw new BotApiError(method, response);
    return response.result;
  }

  getMe(signal?: AbortSignal) {
    return this.call("getMe", undefined, signal);
  }
  getFile(file_id: string, signal?: AbortSignal) {
    return this.call("getFile", { file_id }, signal);
  }
  sendMessage(chat_id: number | string, text: string, other?: Other<"sendMessage", "chat_id" | "text">) {
    return this.call("sendMessage", { chat_id, text, ...other });
  }
  sendMessageDraft(
    chat_id: number,
    draft_id: number,
    text: string,
    other?: Other<"sendMessageDraft", "chat_id" | "draft_id" | "text">,
  ) {
    return this.call("sendMessageDraft", { chat_id, draft_id, text, ...other });
  }
  sendRichMessage(
    chat_id: number | string,
    rich_message: NonNullable<Payload<"sendRichMessage">>["rich_message"],
    other?: Other<"sendRichMessage", "chat_id" | "rich_message">,
  ) {
    return this.call("sendRichMessage", { chat_id, rich_message, ...other });
  }
  sendRichMessageDraft(
    chat_id: number,
    draft_id: number,
    rich_message: NonNullable<Payload<"sendRichMessageDraft">>["rich_message"],
    other?: Other<"sendRichMessageDraft", "chat_id" | "draft_id" | "rich_message">,
  ) {
    return this.call("sendRichMessageDraft", { chat_id, draft_id, rich_message, ...other });
  }
  /** A plain text (`text`) or a rich message (`rich_message`) in place of a sent message's. */
  editMessageText(
    chat_id: number | string,
    message_id: number,
    text_or_rich_message: string | NonNullable<Payload<"sendRichMessage">>["rich_message"],
    other?: Other<"editMessageText", "chat_id" | "message_id" | "inline_message_id" | "text" | "rich_message">,
  ) {
    const content =
      typeof text_or_rich_message === "string"
        ? { text: text_or_rich_message }
        : { rich_message: text_or_rich_message };
    return this.call("editMessageText", { chat_id, message_id, ...content, ...other } as Payload<"editMessageText">);
  }
  /** A text in place of the one of a message Telegram names only by its inline id (a press without `message`). */
  editMessageTextInline(
    inline_message_id: string,
    text: string,
    other?: Other<"editMessageText", "chat_id" | "message_id" | "inline_message_id" | "text" | "rich_message">,
  ) {
    return this.call("editMessageText", { inline_message_id, text, ...other } as Payload<"editMessageText">);
  }
  deleteMessage(chat_id: number | string, message_id: number) {
    return this.call("deleteMessage", { chat_id, message_id });
  }
  sendChatAction(
    chat_id: number | string,
    action: NonNullable<Payload<"sendChatAction">>["action"],
    other?: Other<"sendChatAction", "chat_id" | "action">,
  ) {
    return this.call("sendChatAction", { chat_id, action, ...other });
  }
  setMessageReaction(
    chat_id: number | string,
    message_id: number,
    reaction: NonNullable<Payload<"setMessageReaction">>["reaction"],
    other?: Other<"setMessageReaction", "chat_id" | "message_id" | "reaction">,
  ) {
    return this.call("setMessageReaction", { chat_id, message_id, reaction, ...other });
  }
  answerCallbackQuery(callback_query_id: string, other?: Other<"answerCallbackQuery", "callback_query_id">) {
    return this.call("answerCallbackQuery", { callback_query_id, ...other });
  }
  answerGuestQuery(guest_query_id: string, result: NonNullable<Payload<"answerGuestQuery">>["result"]) {
    return this.call("answerGuestQuery", { guest_query_id, result });
  }
  sendPhoto(chat_id: number | string, photo: InputFile | string, other?: Other<"sendPhoto", "chat_id" | "photo">) {
    // grammY's types name grammY's InputFile; this module's stands in for it (the body is built here).
    return this.call("sendPhoto", { chat_id, photo, ...other } as unknown as Payload<"sendPhoto">);
  }
  sendVoice(chat_id: number | string, voice: InputFile | string, other?: Other<"sendVoice", "chat_id" | "voice">) {
    return this.call("sendVoice", { chat_id, voice, ...other } as unknown as Payload<"sendVoice">);
  }

  /** The call itself: JSON, or multipart when the payload holds a file. */
  private async fetchCall(
    method: string,
    payload: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<ApiResponse<unknown>> {
    // A timer of its own, cleared once the answer is read: `AbortSignal.timeout` left one on the runtime's timer heap
    // for a minute after every call, which fired later for nothing (two or three of them per turn).
    const timeout = new AbortController();
    const timer = setTimeout(
      () => timeout.abort(new DOMException(`no answer in ${this.options.timeoutSeconds} s`, "TimeoutError")),
      this.options.timeoutSeconds * 1000,
    );
    const init: RequestInit = {
      method: "POST",
      signal: signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal,
      ...requestBody(payload),
    };
    try {
      const response = await fetch(`${this.options.apiRoot}/bot${this.token}/${method}`, init);
      return (await response.json()) as ApiResponse<unknown>;
    } catch (error) {
      throw new BotApiHttpError(method, error);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A payload as the request's body: JSON, or multipart/form-data when it holds an InputFile (nested values as JSON). */
function requestBody(payload: Record<string, unknown>): { body: string | FormData; headers?: Record<string, string> } {
  const entries = Object.entries(payload).filter(([, value]) => value !== undefined);
  if (!entries.some(([, value]) => value instanceof InputFile)) {
    return { body: JSON.stringify(Object.fromEntries(entries)), headers: { "content-type": "application/json" } };
  }
  const form = new FormData();
  for (const [key, value] of entries) {
    if (value instanceof InputFile) form.append(key, new Blob([value.bytes]), value.fileName);
    else form.append(key, typeof value === "object" ? JSON.stringify(value) : String(value));
  }
  return { body: form };
}
