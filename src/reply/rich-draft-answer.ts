import type { SendOptions, TelegramClient } from "../telegram/client.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";
import { RICH_BUDGET } from "../telegram/rich-limits.ts";
import { escapeMarkdown, renderRichPartial } from "../telegram/rich-render.ts";
import type { AnswerDelivery, FinalAnswerText } from "./answer-delivery.ts";
import type { AnswerView, LiveAnswer } from "./live-answer.ts";
import type { Delivery } from "./outbox.ts";
import { PacedWriter } from "./paced-writer.ts";
import type { Pacer } from "./pacer.ts";
import { RichLiveAnswer } from "./rich-live-answer.ts";

/** A draft appears this long after the answer's first text (well within the 150 ms a person notices). */
const FIRST_DRAFT_AFTER_MS = 100;
/** A draft is a 30-second preview: one that has not changed for this long is shown again, so it stays. */
const KEEP_ALIVE_MS = 20_000;
/** Room in a draft for the thinking block around the current step. */
const DRAFT_BUDGET = { ...RICH_BUDGET, blocks: RICH_BUDGET.blocks - 10, characters: RICH_BUDGET.characters - 1_000 };

export interface RichDraftOptions {
  telegram: Pick<TelegramClient, "sendRichDraft">;
  target: ChatTarget;
  pacer: Pacer;
  delivery: Pick<AnswerDelivery, "send" | "refuse">;
  /** The draft's id: a `stopped_message_generation` update names it when the person presses the stop control. */
  draftId: number;
  /** Telegram refused rich drafts (an older server): plain drafts and a status line instead. */
  plain: () => AnswerView;
  /** Telegram refused drafts in this chat: an edited message instead (the chat remembers it). */
  withoutDrafts: () => AnswerView;
}

/**
 * Private chats with rich messages: the answer grows in a rich draft (`sendRichMessageDraft`), rendered as it will
 * look (a table shows as a table once its rows parse), paced; while tools run, a `<tg-thinking>` block shows the
 * current step; every draft carries Telegram's stop control (`can_stop`), so the status line and its Stop button are
 * not needed here. The final message (rich or HTML, as AnswerDelivery decides) replaces the draft. A refusal of the
 * rich form falls back to plain drafts; a refusal of drafts, to an edited message; an unavailable Telegram (5xx, a
 * timeout) changes nothing: the next update goes as usual.
 */
export class RichDraftAnswer extends RichLiveAnswer implements LiveAnswer {
  private shown = "";
  private lastSentAt = 0;
  protected readonly writer: PacedWriter;
  /** Renews the draft while it shows; started with the first draft (an answer that comes at once never needs it). */
  private keepAlive: ReturnType<typeof setInterval> | undefined;
  private keepAliveEnded = false;

  constructor(private readonly options: RichDraftOptions) {
    super();
    this.writer = new PacedWriter({
      pacer: options.pacer,
      // An answer that arrives all at once needs no draft; a step shows at once.
      notBefore: () => (this.streamed.value === "" ? 0 : this.streamed.startedAt + FIRST_DRAFT_AFTER_MS),
      write: () => this.write(),
    });
  }

  private keepShowing(): void {
    if (this.keepAlive !== undefined || this.keepAliveEnded) return;
    this.keepAlive = setInterval(() => {
      if (this.fallback || this.shown === "" || Date.now() - this.lastSentAt < KEEP_ALIVE_MS) return;
      this.shown = "";
      this.writer.schedule();
    }, KEEP_ALIVE_MS / 4);
  }

  private stopKeepingAlive(): void {
    this.keepAliveEnded = true;
    clearInterval(this.keepAlive);
  }

  get visible(): boolean {
    return this.fallback?.answer.visible ?? this.shown !== "";
  }

  override async close(): Promise<number | undefined> {
    this.stopKeepingAlive();
    return super.close();
  }

  textEnded(): void {
    void this.writer.close();
    this.fallback?.answer.textEnded();
  }

  async finish(answer: FinalAnswerText, options: SendOptions): Promise<Delivery> {
    // No draft may land after the final message (it would show as a draft again): stop, and wait for the last one.
    this.stopKeepingAlive();
    await this.writer.close();
    if (this.fallback) return this.fallback.answer.finish(answer, options);
    return this.options.delivery.send(answer, options);
  }

  async abandon(note: string): Promise<void> {
    this.stopKeepingAlive();
    await this.writer.close();
    // A draft vanishes by itself; only a fallback message needs marking.
    if (this.fallback) await this.fallback.answer.abandon(note);
  }

  /** The draft as it should look now: the current step in a thinking block, then the answer so far. */
  private draft(): string {
    const pieces = renderRichPartial(this.showableText(), DRAFT_BUDGET);
    const answer = pieces.at(-1) ?? "";
    // Every draft has the stop control; a stop offer makes sure a draft shows while the turn is still silent.
    const step = this.step ?? (answer === "" && this.stopData !== undefined ? "⏳ Working…" : undefined);
    const thinking = step === undefined ? "" : `<tg-thinking>\n\n${escapeMarkdown(step)}\n\n</tg-thinking>`;
    return [thinking, answer].filter((part) => part !== "").join("\n\n");
  }

  private async write(): Promise<"again" | "done"> {
    if (this.fallback) return "done";
    const draft = this.draft();
    if (draft === "" || draft === this.shown) return "done";
    this.shown = draft;
    this.lastSentAt = Date.now();
    this.keepShowing();
    this.options.pacer.used();
    const { telegram, target, draftId } = this.options;
    const result = await telegram.sendRichDraft(target, draftId, draft, { canStop: true });
    switch (result.kind) {
      case "ok":
      case "unchanged":
        return "done";
      case "wait":
        this.options.pacer.backOff(result.seconds);
        this.shown = "";
        return "again";
      case "unavailable":
        // Not a refusal: the next update goes as usual, a moment later.
        console.warn(`chat ${target.chatId}: a rich draft was not shown (${result.description})`);
        this.options.pacer.backOff(1);
        this.shown = "";
        return "again";
      case "refused":
        if (result.rich) {
          this.options.delivery.refuse(result.description);
          this.switchTo(this.options.plain());
        } else {
          console.warn(`chat ${target.chatId}: drafts refused (${result.description}); editing a message instead`);
          this.switchTo(this.options.withoutDrafts());
        }
        return "done";
    }
  }

  protected override switchTo(view: AnswerView): void {
    this.stopKeepingAlive();
    super.switchTo(view);
  }
}
