/**
 * One read of a cached value at a time: a caller that asks for the same key while a read of it is under way gets that
 * read (a chat object's warm-up as the message is stored, then the turn), not a second one. The reader learns, when
 * its read ends, whether it is still the current one: after `drop` (the value changed meanwhile) what it found may be
 * older than the change, and is not to be cached.
 */
export class SharedRead<K, V> {
  private current: { key: K; read: Promise<V> } | undefined;

  /** The read of `key` under way, or a new one from `start`. */
  of(key: K, start: (stillCurrent: () => boolean) => Promise<V>): Promise<V> {
    if (this.current !== undefined && this.current.key === key) return this.current.read;
    let entry: { key: K; read: Promise<V> } | undefined;
    const read = start(() => this.current === entry);
    entry = { key, read };
    this.current = entry;
    const done = () => {
      if (this.current === entry) this.current = undefined;
    };
    read.then(done, done);
    return read;
  }

  /** The read under way is shared no more, and what it finds is not current. */
  drop(): void {
    this.current = undefined;
  }
}
