/** Serialises async critical sections: each `run` starts after the previous one settled (FIFO). */
export class AsyncMutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(section: () => Promise<T>): Promise<T> {
    const result = this.tail.then(section);
    // A failed section must not block the next one.
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves once every section queued so far has settled. */
  async idle(): Promise<void> {
    await this.tail;
  }
}
