/** Subscribers to an event; a listener's failure is swallowed (it must not undo or fail what the event reports). */
export class ChangeListeners<E> {
  private readonly listeners = new Set<(event: E) => void>();

  /** Subscribes; returns the unsubscribe function. */
  add(listener: (event: E) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit(event: E): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // Swallowed: see the class comment.
      }
    }
  }
}
