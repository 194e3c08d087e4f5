/** Runs an observer callback; observers must not throw, and this keeps a faulty one from breaking the loop. */
export function safely(notify: () => void): void {
  try {
    notify();
  } catch {
    // deliberately ignored: tracing is best effort, the decision is not
  }
}
