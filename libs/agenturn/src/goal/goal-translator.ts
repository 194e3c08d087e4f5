import type { Goal } from './goal';
import type { InteractionHistory } from './interaction-history';

/** Turns a user's request into a goal (source `user`), written in the user's language. */
export interface GoalTranslator {
  /**
   * Rejects with a `CancelledError` when `signal` aborts and with model errors (`ModelOutputError`, `ModelTimeoutError`,
   * `ModelUnavailableError`) when the underlying model fails.
   */
  translate(
    request: string,
    beliefs: readonly string[],
    history?: InteractionHistory,
    signal?: AbortSignal,
  ): Promise<Goal>;
}
