/**
 * An answer's text as its model call streams it in, for the live answers that show it. When the call is made again
 * (a message joined the turn), the text so far is dropped with the next delta: until then it is kept, and
 * `restartPending` says it is about to go.
 */
export class StreamedText {
  value = "";
  /** When the first text came (epoch ms); 0 before. */
  startedAt = 0;
  private pending = false;

  /** Adds a delta; true when it began the text over (what came before was dropped). */
  append(delta: string): boolean {
    const restarted = this.pending;
    if (restarted) {
      this.value = "";
      this.pending = false;
    }
    if (this.startedAt === 0) this.startedAt = Date.now();
    this.value += delta;
    return restarted;
  }

  restart(): void {
    this.pending = true;
  }

  get restartPending(): boolean {
    return this.pending;
  }
}
