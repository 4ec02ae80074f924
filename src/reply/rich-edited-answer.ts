import type { OutboxStep } from "../store/outbox-store.ts";
import type { QuickResult, SendOptions, TelegramClient } from "../telegram/client.ts";
import type { ChatTarget } from "../telegram/incoming-message.ts";
import { RICH_BUDGET } from "../telegram/rich-limits.ts";
import { escapeMarkdown, renderRichPartial } from "../telegram/rich-render.ts";
import type { AnswerDelivery, FinalAnswerText } from "./answer-delivery.ts";
import type { AnswerView, LiveAnswer } from "./live-answer.ts";
import type { Delivery } from "./outbox.ts";
import { htmlParcel } from "./outbox-steps.ts";
import { PacedWriter } from "./paced-writer.ts";
import type { Pacer } from "./pacer.ts";
import { RichLiveAnswer } from "./rich-live-answer.ts";

/** Room in a streamed piece for the status line under it. */
const STREAM_BUDGET = { ...RICH_BUDGET, blocks: RICH_BUDGET.blocks - 5, characters: RICH_BUDGET.characters - 500 };

export interface RichEditedOptions {
  telegram: TelegramClient;
  target: ChatTarget;
  pacer: Pacer;
  delivery: AnswerDelivery;
  replyToMessageId?: number;
  /** The first message waits this long for the answer to run a moment (a quick answer is sent once, whole). */
  firstAfterMs: number;
  /** Telegram refused rich messages: one plain edited message and a status line instead. */
  plain: () => AnswerView;
}

interface Shown {
  id: number;
  /** The Markdown the message shows, status line included, and without it. */
  markdown: string;
  body: string;
  stop: boolean;
  /** Telegram took it (a refused edit is recorded too, so as not to retry it, but the message may show less). */
  confirmed: boolean;
}

/**
 * Groups and forum topics with rich messages (and private chats that refused drafts): one rich message, edited in
 * place at the pacer's rate, showing the answer as it will look (a table once its rows parse) with the current step
 * as its last line and the Stop button under it, so that no second message is needed for the status. Its last edit
 * is the final answer (a rich message: it already is one) without the status and the button. An answer longer than
 * one rich message continues in new ones. A refusal of the rich form before anything shows falls back to the plain
 * edited message and status line; an unavailable Telegram only delays the next update.
 */
export class RichEditedAnswer extends RichLiveAnswer implements LiveAnswer {
  private readonly messages: Shown[] = [];
  protected readonly writer: PacedWriter;

  constructor(private readonly options: RichEditedOptions) {
    super();
    this.writer = new PacedWriter({
      pacer: options.pacer,
      // Text waits a moment before the first message; a step or the Stop button shows at once.
      notBefore: () =>
        this.messages.length > 0 || this.step !== undefined || this.stopData !== undefined
          ? 0
          : this.streamed.startedAt + options.firstAfterMs,
      write: () => this.update(),
    });
  }

  get visible(): boolean {
    return this.fallback?.answer.visible ?? this.messages.length > 0;
  }

  textEnded(): void {
    void this.writer.close();
    this.fallback?.answer.textEnded();
  }

  async finish(answer: FinalAnswerText, options: SendOptions): Promise<Delivery> {
    await this.writer.close();
    if (this.fallback) return this.fallback.answer.finish(answer, options);
    // A 429's retry_after holds for the final form too.
    const wait = Math.min(this.options.pacer.waitRequiredMs(), 60_000);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const { delivery, target } = this.options;
    if (this.messages.length === 0) return delivery.send(answer, options);
    const streamed = this.messages.map((message) => message.id);
    const replyTo = options.replyToMessageId;
    const pieces = delivery.richPiecesOf(answer, { streamed: true });
    if (pieces === undefined) {
      // The answer cannot be a rich message after all (nesting past the limits): the streamed messages go, the
      // answer comes on the HTML path; never two copies at once.
      const html = htmlParcel(target, answer.markdown, replyTo);
      return delivery.post({ target, steps: [...streamed.map(deletion), ...html.steps] });
    }
    // Each streamed message gets its piece's final form (without the status line and the button), more pieces go as
    // new rich messages, and streamed messages left over go. A refusal of the rich form deletes what was streamed
    // and sends the whole answer as HTML (see htmlInstead).
    const steps: OutboxStep[] = [
      ...pieces.flatMap((markdown, index): OutboxStep[] => {
        const shown = this.messages[index];
        if (shown === undefined) return [{ kind: "send-rich", markdown }];
        // Already showing this very piece, with no button to take away: Telegram refuses an edit that changes nothing.
        if (shown.confirmed && !shown.stop && shown.markdown === markdown) return [];
        return [{ kind: "edit-rich", messageId: shown.id, markdown }];
      }),
      ...streamed.slice(pieces.length).map(deletion),
    ];
    // The streamed message already is the final answer.
    if (steps.length === 0) return "sent";
    return delivery.post({
      target,
      steps,
      rich: { whole: answer.markdown, ...(replyTo === undefined ? {} : { replyTo }), streamed, sentAny: false },
    });
  }

  async abandon(note: string): Promise<void> {
    await this.writer.close();
    if (this.fallback) {
      await this.fallback.answer.abandon(note);
      return;
    }
    const last = this.messages.at(-1);
    if (!last) return;
    const markdown = [last.body, escapeMarkdown(note)].filter((part) => part !== "").join("\n\n");
    const result = await this.options.telegram.editRichQuick(this.options.target, last.id, markdown, []);
    if (result.kind === "refused" || result.kind === "unavailable") {
      console.warn(`chat ${this.options.target.chatId}: marking a partial answer failed (${result.description})`);
    }
  }

  /** The messages as they should look now: the answer's pieces, the last with the status line and the Stop button. */
  private wanted(): { markdown: string; body: string; stop: boolean }[] {
    const pieces = renderRichPartial(this.showableText(), STREAM_BUDGET);
    const step = this.step ?? (pieces.length === 0 && this.stopData !== undefined ? "⏳ Working…" : undefined);
    const status = step === undefined ? undefined : `_${escapeMarkdown(step)}_`;
    const wanted = pieces.map((body) => ({ markdown: body, body, stop: false }));
    if (status !== undefined) {
      const last = wanted.pop();
      wanted.push(
        last
          ? { markdown: `${last.body}\n\n${status}`, body: last.body, stop: false }
          : { markdown: status, body: "", stop: false },
      );
    }
    const last = wanted.at(-1);
    if (last && this.stopData !== undefined) last.stop = true;
    return wanted;
  }

  /** One paced call: the first message that differs from what it should show is sent or edited. */
  private async update(): Promise<"again" | "done"> {
    if (this.fallback) return "done";
    const wanted = this.wanted();
    const index = wanted.findIndex((want, at) => {
      const shown = this.messages[at];
      return !shown || shown.markdown !== want.markdown || shown.stop !== want.stop;
    });
    if (index === -1) return "done";
    const want = wanted[index]!;
    const existing = this.messages[index];
    const { telegram, target, pacer, replyToMessageId } = this.options;
    const buttons = want.stop && this.stopData !== undefined ? [{ text: "⏹ Stop", data: this.stopData }] : [];
    pacer.used();
    const result: QuickResult<number | true> = existing
      ? await telegram.editRichQuick(target, existing.id, want.markdown, buttons)
      : await telegram.sendRichQuick(target, want.markdown, {
          ...(index === 0 && replyToMessageId !== undefined ? { replyToMessageId } : {}),
          buttons,
        });
    switch (result.kind) {
      case "ok":
        if (existing) Object.assign(existing, want, { confirmed: true });
        else if (typeof result.value === "number") this.messages.push({ id: result.value, ...want, confirmed: true });
        return "again";
      case "unchanged":
        if (existing) Object.assign(existing, want, { confirmed: true });
        return "again";
      case "wait":
        pacer.backOff(result.seconds);
        return "again";
      case "unavailable":
        console.warn(`chat ${target.chatId}: a streamed update failed (${result.description})`);
        pacer.backOff(1);
        return "again";
      case "refused":
        if (result.rich && this.messages.length === 0) {
          this.options.delivery.refuse(result.description);
          this.switchTo(this.options.plain());
          return "done";
        }
        // Not retried: the next change of the answer tries again.
        console.warn(`chat ${target.chatId}: a streamed update was refused (${result.description})`);
        if (existing) Object.assign(existing, want, { confirmed: false });
        return "done";
    }
  }
}

function deletion(messageId: number): OutboxStep {
  return { kind: "delete", messageId };
}
