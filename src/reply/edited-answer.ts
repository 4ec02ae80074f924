import type { OutboxStep } from "../store/outbox-store.ts";
import type { SendOptions, TelegramClient } from "../telegram/client.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";
import { renderPieces } from "../telegram/render.ts";
import { TELEGRAM_MESSAGE_LIMIT } from "../telegram/split.ts";
import type { AnswerDelivery, FinalAnswerText } from "./answer-delivery.ts";
import { CURSOR, type LiveAnswer, STREAM_LIMIT, wholeCharacters } from "./live-answer.ts";
import type { Delivery } from "./outbox.ts";
import { PacedWriter } from "./paced-writer.ts";
import type { Pacer } from "./pacer.ts";
import { StreamedText } from "./streamed-text.ts";

/**
 * Groups and forum topics without rich messages (and such private chats without drafts): one message, created once the answer has run a
 * moment, edited in place at the pacer's rate, and edited a last time into the formatted answer, so that no second
 * copy appears. Text past one message's length continues in new messages; what was shown is never sent again.
 */
export class EditedAnswer implements LiveAnswer {
  /** The streamed messages, in order: their ids and the plain text each shows. */
  private readonly messages: { id: number; text: string }[] = [];
  private readonly streamed = new StreamedText();
  /** How much of the streamed text the full messages before the open one already hold, and how many they are. */
  private frozen = 0;
  private frozenMessages = 0;
  private readonly writer: PacedWriter;

  constructor(
    private readonly telegram: TelegramClient,
    private readonly target: ChatTarget,
    private readonly pacer: Pacer,
    private readonly delivery: AnswerDelivery,
    private readonly options: { replyToMessageId?: number; firstAfterMs: number },
  ) {
    // A short answer is sent once, formatted, by finish(): streaming starts only when it takes a moment.
    this.writer = new PacedWriter({
      pacer,
      notBefore: () => (this.messages.length === 0 ? this.streamed.startedAt + this.options.firstAfterMs : 0),
      write: () => this.update(),
    });
  }

  get visible(): boolean {
    return this.messages.length > 0;
  }

  delta(text: string): void {
    if (this.streamed.append(text)) {
      this.frozen = 0;
      this.frozenMessages = 0;
    }
    this.writer.schedule();
  }

  restart(): void {
    this.streamed.restart();
  }

  textEnded(): void {
    void this.writer.close();
  }

  async finish(answer: FinalAnswerText, options: SendOptions): Promise<Delivery> {
    await this.writer.close();
    // A 429's retry_after holds for the final form too (the retrying client would only wait after another 429).
    const wait = Math.min(this.pacer.waitRequiredMs(), 60_000);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (this.messages.length === 0) return this.delivery.send(answer, options);
    // The streamed messages are plain text: their final form is Telegram HTML (this path is the one without rich),
    // edited into them, then new messages for the rest; what the streamed text had beyond the answer (an agent's
    // interim text) is deleted.
    const pieces = renderPieces(answer.markdown, TELEGRAM_MESSAGE_LIMIT);
    const steps: OutboxStep[] = [
      ...pieces.map((piece, index): OutboxStep => {
        const shown = this.messages[index];
        return shown ? { kind: "edit", messageId: shown.id, piece } : { kind: "send", piece };
      }),
      ...this.messages.slice(pieces.length).map((extra): OutboxStep => ({ kind: "delete", messageId: extra.id })),
    ];
    return this.delivery.post({ target: this.target, steps });
  }

  async abandon(note: string): Promise<void> {
    await this.writer.close();
    const open = this.messages[Math.min(this.frozenMessages, this.messages.length - 1)];
    if (!open) return;
    const text = open.text.endsWith(CURSOR) ? open.text.slice(0, -CURSOR.length) : open.text;
    const result = await this.telegram.editQuick(this.target, open.id, `${text}\n\n${note}`);
    if (result.kind === "refused" || result.kind === "unavailable") {
      console.warn(`chat ${this.target.chatId}: marking a partial answer failed (${result.description})`);
    }
  }

  /** One paced call: close a full message (the rest goes to a new one next time), or show the open one's text. */
  private async update(): Promise<"again" | "done"> {
    const current = wholeCharacters(this.streamed.value.slice(this.frozen));
    if (current.trim() === "") return "done";
    if (current.length > STREAM_LIMIT) {
      const cut = breakBefore(current, STREAM_LIMIT);
      if (await this.show(this.frozenMessages, current.slice(0, cut).trimEnd(), false)) {
        this.frozen += cut;
        this.frozenMessages++;
      }
      return "again";
    }
    const shown = await this.show(this.frozenMessages, current, true);
    return !shown || wholeCharacters(this.streamed.value.slice(this.frozen)) !== current ? "again" : "done";
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
      case "refused":
      case "unavailable":
        console.warn(`chat ${this.target.chatId}: a streamed update failed (${result.description})`);
        return true;
    }
  }
}

/**
 * Where to cut a too-long text: the last paragraph, line or word break in its second half, else the limit (one less
 * where the limit falls inside a surrogate pair: Telegram refuses half an emoji).
 */
function breakBefore(text: string, limit: number): number {
  for (const separator of ["\n\n", "\n", " "]) {
    const at = text.lastIndexOf(separator, limit);
    if (at >= limit / 2) return at + separator.length;
  }
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}
