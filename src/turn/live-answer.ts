import type { SendOptions, TelegramClient } from "../telegram/client.ts";
import { renderPieces } from "../telegram/client.ts";
import { TELEGRAM_MESSAGE_LIMIT } from "../telegram/split.ts";
import type { ChatTarget } from "../telegram/update.ts";
import type { Pacer } from "./pacer.ts";

/**
 * The answer as it is written, shown in Telegram, and then its final form, delivered once. Streamed text is plain
 * (half-written Markdown does not render); the final answer is Telegram HTML, split at 4,096 characters.
 */
export interface LiveAnswer {
  /** More of the current model call's text. */
  delta(text: string): void;
  /** The text so far introduced a tool call: the next delta starts the answer afresh. */
  restart(): void;
  /** Whether any of the answer is on screen yet. */
  readonly visible: boolean;
  /** Delivers the whole answer; true once Telegram has all of it. */
  finish(markdown: string, options: SendOptions): Promise<boolean>;
  /** The turn ends without an answer: updates stop, and a partial message a chat already sees is marked as such. */
  abandon(note: string): Promise<void>;
}

/** Streamed text over this length is cut so that a message (or draft) never exceeds Telegram's limit. */
const STREAM_LIMIT = TELEGRAM_MESSAGE_LIMIT - 96;
const CURSOR = " ▍";
/** A draft appears this long after the answer's first text (well within the 150 ms a person notices). */
const FIRST_DRAFT_AFTER_MS = 100;

/** Delivers only the final answer (scheduled tasks: nobody is watching the stream). */
export class FinalAnswer implements LiveAnswer {
  readonly visible = false;

  constructor(
    private readonly telegram: TelegramClient,
    private readonly target: ChatTarget,
  ) {}

  delta(): void {}
  restart(): void {}

  async finish(markdown: string, options: SendOptions): Promise<boolean> {
    await this.telegram.sendMarkdown(this.target, markdown, options);
    return true;
  }

  async abandon(): Promise<void> {}
}

/**
 * Private chats: the answer grows in a native draft (`sendMessageDraft`), paced, then one `sendMessage` replaces it.
 * If Telegram refuses drafts, the answer continues as an edited message (and the chat remembers not to try again).
 */
export class DraftAnswer implements LiveAnswer {
  private text = "";
  private started = 0;
  private restartPending = false;
  private shown = "";
  private timer: ReturnType<typeof setTimeout> | undefined;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;
  private fallback: LiveAnswer | undefined;
  private readonly draftId = 1 + Math.floor(Math.random() * 2_000_000_000);

  constructor(
    private readonly telegram: TelegramClient,
    private readonly target: ChatTarget,
    private readonly pacer: Pacer,
    private readonly onDraftsRefused: () => LiveAnswer,
  ) {}

  get visible(): boolean {
    return this.fallback?.visible ?? this.shown !== "";
  }

  delta(text: string): void {
    if (this.fallback) {
      this.fallback.delta(text);
      return;
    }
    if (this.restartPending) {
      this.text = "";
      this.restartPending = false;
    }
    if (this.started === 0) this.started = Date.now();
    this.text += text;
    this.schedule();
  }

  restart(): void {
    if (this.fallback) {
      this.fallback.restart();
      return;
    }
    this.restartPending = true;
  }

  async finish(markdown: string, options: SendOptions): Promise<boolean> {
    await this.close();
    if (this.fallback) return this.fallback.finish(markdown, options);
    await this.telegram.sendMarkdown(this.target, markdown, options);
    return true;
  }

  async abandon(note: string): Promise<void> {
    await this.close();
    // A draft vanishes by itself; only a fallback message needs marking.
    if (this.fallback) await this.fallback.abandon(note);
  }

  /** No draft may land after the final message (it would show as a draft again): stop, and wait for the last one. */
  private async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.chain;
  }

  private schedule(): void {
    if (this.timer !== undefined || this.closed) return;
    // An answer that arrives all at once needs no draft: the first one waits a moment for more to come.
    const at = Math.max(this.pacer.nextSlot(), this.started + FIRST_DRAFT_AFTER_MS);
    this.timer = setTimeout(() => this.flush(), Math.max(0, at - Date.now()));
  }

  private flush(): void {
    this.timer = undefined;
    if (this.closed || this.fallback) return;
    // Telegram may have asked to wait since this was scheduled.
    if (this.pacer.nextSlot() > Date.now()) {
      this.schedule();
      return;
    }
    const text = streamedText(this.text);
    if (text === "" || text === this.shown) return;
    this.shown = text;
    this.pacer.used();
    this.chain = this.chain.then(async () => {
      const result = await this.telegram.sendDraft(this.target, this.draftId, text);
      switch (result.kind) {
        case "ok":
        case "unchanged":
          return;
        case "wait":
          this.pacer.backOff(result.seconds);
          this.shown = "";
          this.schedule();
          return;
        case "failed":
          console.warn(`chat ${this.target.chatId}: drafts refused (${result.description}); editing a message instead`);
          this.fallback = this.onDraftsRefused();
          if (!this.closed) this.fallback.delta(this.text);
          return;
      }
    });
  }
}

/**
 * Groups and forum topics (and private chats without drafts): one message, created once the answer has run a
 * moment, edited in place at the pacer's rate, and edited a last time into the formatted answer, so that no second
 * copy appears. Text past one message's length continues in new messages; what was shown is never sent again.
 */
export class EditedAnswer implements LiveAnswer {
  /** The streamed messages, in order: their ids and the plain text each shows. */
  private readonly messages: { id: number; text: string }[] = [];
  private text = "";
  /** How much of `text` the full messages before the open one already hold, and how many they are. */
  private frozen = 0;
  private frozenMessages = 0;
  private restartPending = false;
  private started = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly telegram: TelegramClient,
    private readonly target: ChatTarget,
    private readonly pacer: Pacer,
    private readonly options: { replyToMessageId?: number; firstAfterMs: number },
  ) {}

  get visible(): boolean {
    return this.messages.length > 0;
  }

  delta(text: string): void {
    if (this.restartPending) {
      this.text = "";
      this.frozen = 0;
      this.frozenMessages = 0;
      this.restartPending = false;
    }
    if (this.started === 0) this.started = Date.now();
    this.text += text;
    this.schedule();
  }

  restart(): void {
    this.restartPending = true;
  }

  async finish(markdown: string, options: SendOptions): Promise<boolean> {
    await this.close();
    // A 429's retry_after holds for the final form too (the retrying client would only wait after another 429).
    const wait = Math.min(this.pacer.waitRequiredMs(), 60_000);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (this.messages.length === 0) {
      await this.telegram.sendMarkdown(this.target, markdown, options);
      return true;
    }
    const pieces = renderPieces(markdown, TELEGRAM_MESSAGE_LIMIT);
    for (const [index, piece] of pieces.entries()) {
      const shown = this.messages[index];
      if (shown) await this.telegram.editPiece(this.target, shown.id, piece);
      else
        await this.telegram.sendPiece(this.target, piece, {
          ...(options.deadline ? { deadline: options.deadline } : {}),
        });
    }
    // The streamed text ran longer than the answer (an agent's interim text): what is left over goes.
    for (const extra of this.messages.slice(pieces.length)) {
      await this.telegram.deleteMessage(this.target, extra.id).catch(() => undefined);
    }
    return true;
  }

  async abandon(note: string): Promise<void> {
    await this.close();
    const open = this.messages[Math.min(this.frozenMessages, this.messages.length - 1)];
    if (!open) return;
    const text = open.text.endsWith(CURSOR) ? open.text.slice(0, -CURSOR.length) : open.text;
    const result = await this.telegram.editQuick(this.target, open.id, `${text}\n\n${note}`);
    if (result.kind === "failed") console.warn(`chat ${this.target.chatId}: marking a partial answer failed`);
  }

  private async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.chain;
  }

  private schedule(): void {
    if (this.timer !== undefined || this.closed) return;
    // A short answer is sent once, formatted, by finish(): streaming starts only when it takes a moment.
    const first = this.messages.length === 0 ? this.started + this.options.firstAfterMs : 0;
    const at = Math.max(this.pacer.nextSlot(), first);
    this.timer = setTimeout(() => this.flush(), Math.max(0, at - Date.now()));
  }

  private flush(): void {
    this.timer = undefined;
    if (this.closed) return;
    this.chain = this.chain.then(() => this.update());
  }

  /** One paced call: close a full message (the rest goes to a new one next time), or show the open one's text. */
  private async update(): Promise<void> {
    if (this.closed) return;
    if (this.pacer.nextSlot() > Date.now()) {
      this.schedule();
      return;
    }
    const current = this.text.slice(this.frozen);
    if (current.trim() === "") return;
    if (current.length > STREAM_LIMIT) {
      const cut = breakBefore(current, STREAM_LIMIT);
      if (await this.show(this.frozenMessages, current.slice(0, cut).trimEnd(), false)) {
        this.frozen += cut;
        this.frozenMessages++;
      }
      this.schedule();
      return;
    }
    const shown = await this.show(this.frozenMessages, current, true);
    if (!shown || this.text.slice(this.frozen) !== current) this.schedule();
  }

  /** Puts `text` into message `index` (sending it if it does not exist yet); false when Telegram said to wait. */
  private async show(index: number, text: string, writing: boolean): Promise<boolean> {
    const body = writing ? `${text.trimEnd()}${CURSOR}` : text;
    const existing = this.messages[index];
    if (existing?.text === body) return true;
    this.pacer.used();
    const result = existing
      ? await this.telegram.editQuick(this.target, existing.id, body)
      : await this.telegram.sendQuick(this.target, body, index === 0 ? this.options : {});
    switch (result.kind) {
      case "ok":
        if (existing) existing.text = body;
        else if (typeof result.value === "number") this.messages.push({ id: result.value, text: body });
        return true;
      case "unchanged":
        return true;
      case "wait":
        this.pacer.backOff(result.seconds);
        return false;
      case "failed":
        console.warn(`chat ${this.target.chatId}: a streamed update failed (${result.description})`);
        return true;
    }
  }
}

/** What a draft shows: the text so far, or its end when it is longer than a message. */
function streamedText(text: string): string {
  const trimmed = text.trim();
  return trimmed.length <= STREAM_LIMIT ? trimmed : `…${trimmed.slice(-(STREAM_LIMIT - 1))}`;
}

/** Where to cut a too-long text: the last paragraph, line or word break in its second half, else the limit. */
function breakBefore(text: string, limit: number): number {
  for (const separator of ["\n\n", "\n", " "]) {
    const at = text.lastIndexOf(separator, limit);
    if (at >= limit / 2) return at + separator.length;
  }
  return limit;
}
