import { type AnswerView, type StepView, wholeCharacters } from "./live-answer.ts";
import type { PacedWriter } from "./paced-writer.ts";
import { StreamedText } from "./streamed-text.ts";

/**
 * What the two rich ways of streaming an answer (a private chat's rich draft, a group's rich message edited in place)
 * keep alike: the answer so far, the current step and the stop offer, each change scheduling the next paced update;
 * and, once Telegram refused their form, the fallback view everything is handed to from then on.
 */
export abstract class RichLiveAnswer implements StepView {
  /** The answer so far; while a restart is pending it is not shown. */
  protected readonly streamed = new StreamedText();
  protected step: string | undefined;
  protected stopData: string | undefined;
  protected fallback: AnswerView | undefined;
  protected abstract readonly writer: PacedWriter;

  delta(text: string): void {
    if (this.fallback) {
      this.fallback.answer.delta(text);
      return;
    }
    this.streamed.append(text);
    this.writer.schedule();
  }

  restart(): void {
    if (this.fallback) this.fallback.answer.restart();
    else this.streamed.restart();
  }

  show(step: string): void {
    if (this.fallback) {
      this.fallback.steps.show(step);
      return;
    }
    this.step = step;
    this.writer.schedule();
  }

  offerStop(data: string): void {
    if (this.fallback) {
      this.fallback.steps.offerStop(data);
      return;
    }
    this.stopData = data;
    this.writer.schedule();
  }

  writing(): void {
    if (this.fallback) this.fallback.steps.writing();
    else this.step = undefined;
  }

  async close(): Promise<number | undefined> {
    return this.fallback?.steps.close();
  }

  /** The answer as it may be shown now: nothing while a restart is pending, and never half an emoji. */
  protected showableText(): string {
    return this.streamed.restartPending ? "" : wholeCharacters(this.streamed.value);
  }

  /** Hands the answer so far, the current step and the stop offer to the fallback, which shows them from now on. */
  protected switchTo(view: AnswerView): void {
    this.fallback = view;
    if (this.writer.isClosed) return;
    if (this.streamed.value !== "" && !this.streamed.restartPending) view.answer.delta(this.streamed.value);
    if (this.step !== undefined) view.steps.show(this.step);
    if (this.stopData !== undefined) view.steps.offerStop(this.stopData);
  }
}
