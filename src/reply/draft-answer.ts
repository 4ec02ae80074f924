import type { SendOptions, TelegramClient } from "../telegram/client.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";
import type { AnswerDelivery, FinalAnswerText } from "./answer-delivery.ts";
import { type LiveAnswer, streamedText } from "./live-answer.ts";
import type { Delivery } from "./outbox.ts";
import { PacedWriter } from "./paced-writer.ts";
import type { Pacer } from "./pacer.ts";
import { StreamedText } from "./streamed-text.ts";

/** A draft appears this long after the answer's first text (well within the 150 ms a person notices). */
const FIRST_DRAFT_AFTER_MS = 100;

/**
 * Private chats without rich messages: the answer grows in a plain native draft (`sendMessageDraft`), paced, then
 * the final message replaces it. If Telegram refuses drafts (a 4xx), the answer continues as an edited message (and
 * the chat remembers not to try again); an unavailable Telegram (5xx, a timeout) only loses that one update.
 */
export class DraftAnswer implements LiveAnswer {
  private readonly streamed = new StreamedText();
  private shown = "";
  private fallback: LiveAnswer | undefined;
  private readonly draftId = 1 + Math.floor(Math.random() * 2_000_000_000);
  private readonly writer: PacedWriter;

  constructor(
    private readonly telegram: TelegramClient,
    private readonly target: ChatTarget,
    private readonly pacer: Pacer,
    private readonly delivery: AnswerDelivery,
    private readonly onDraftsRefused: () => LiveAnswer,
  ) {
    // An answer that arrives all at once needs no draft: the first one waits a moment for more to come.
    this.writer = new PacedWriter({
      pacer,
      notBefore: () => this.streamed.startedAt + FIRST_DRAFT_AFTER_MS,
      write: () => this.write(),
    });
  }

  get visible(): boolean {
    return this.fallback?.visible ?? this.shown !== "";
  }

  delta(text: string): void {
    if (this.fallback) {
      this.fallback.delta(text);
      return;
    }
    this.streamed.append(text);
    this.writer.schedule();
  }

  restart(): void {
    if (this.fallback) this.fallback.restart();
    else this.streamed.restart();
  }

  textEnded(): void {
    void this.writer.close();
    this.fallback?.textEnded();
  }

  async finish(answer: FinalAnswerText, options: SendOptions): Promise<Delivery> {
    // No draft may land after the final message (it would show as a draft again): stop, and wait for the last one.
    await this.writer.close();
    if (this.fallback) return this.fallback.finish(answer, options);
    return this.delivery.send(answer, options);
  }

  async abandon(note: string): Promise<void> {
    await this.writer.close();
    // A draft vanishes by itself; only a fallback message needs marking.
    if (this.fallback) await this.fallback.abandon(note);
  }

  private async write(): Promise<"again" | "done"> {
    if (this.fallback) return "done";
    const text = streamedText(this.streamed.value);
    if (text === "" || text === this.shown) return "done";
    this.shown = text;
    this.pacer.used();
    const result = await this.telegram.sendDraft(this.target, this.draftId, text);
    switch (result.kind) {
      case "ok":
      case "unchanged":
        return "done";
      case "wait":
        this.pacer.backOff(result.seconds);
        this.shown = "";
        return "again";
      case "unavailable":
        // Telegram did not refuse drafts: this update is lost, the next one goes as usual.
        console.warn(`chat ${this.target.chatId}: a draft was not shown (${result.description})`);
        this.shown = "";
        return "done";
      case "refused":
        console.warn(`chat ${this.target.chatId}: drafts refused (${result.description}); editing a message instead`);
        this.fallback = this.onDraftsRefused();
        if (!this.writer.isClosed) this.fallback.delta(this.streamed.value);
        return "done";
    }
  }
}
