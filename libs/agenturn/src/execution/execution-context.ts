export interface InteractionOptions {
  /** How long to wait for the human; the implementation's default applies when absent. */
  readonly timeoutMs?: number;
  /**
   * Called, before the call resolves false/null, when nobody answered in time: lets a caller that relays the question
   * (a remote tool's executor) tell a timeout from a decline. Implementations that cannot tell never call it.
   */
  readonly onTimeout?: () => void;
}

/**
 * The runtime a pursuit, its determiner and its tools talk through: logging, user-facing output, human interaction,
 * progress and backlog. Implemented by the orchestrator (trace events + interactions over NATS), by the tool runner
 * (runtime calls back to the goal) and by `RecordingExecutionContext` in tests.
 *
 * The sync methods are fire and forget: they never throw and never block the caller.
 */
export interface ExecutionContext {
  debug(message: string): void;
  info(message: string): void;
  warning(message: string): void;
  error(message: string): void;
  /** Text meant for the user (not a log line). */
  output(message: string): void;
  /**
   * Asks the human a yes/no question. Resolves false when declined or when no answer comes in time (every wait is
   * bounded; silence means no). Rejects with `CancelledError` when the goal is cancelled meanwhile.
   */
  confirm(message: string, options?: InteractionOptions): Promise<boolean>;
  /** Asks the human for text. Resolves null when declined or timed out; rejects with `CancelledError` on cancel. */
  request(prompt: string, options?: InteractionOptions): Promise<string | null>;
  /** Reports progress of a long operation (`key` identifies the counter, e.g. `elements_indexed`). */
  progress(key: string, value: string, description?: string): void;
  /** Records a follow-up item for later goals (the autonomous backlog decider picks them up). */
  backlog(content: Readonly<Record<string, unknown>>, priority?: number): void;
}
