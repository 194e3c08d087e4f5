import type { ExecutionContext } from '../execution/execution-context';
import type { InteractionHistory } from '../goal/interaction-history';
import type { ToolCatalog } from '../tool/tool-catalog';
import type { PursuitProgress } from './pursuit';
import type { Decision } from './step';

export interface DetermineActionInput {
  readonly beliefs: readonly string[];
  readonly progress: PursuitProgress;
  /** The tools the plan may name; unavailable ones should be shown as such (or hidden), never planned. */
  readonly tools: ToolCatalog;
  readonly ctx: ExecutionContext;
  readonly history?: InteractionHistory;
  readonly signal?: AbortSignal;
}

/** Decides the next step of a pursuit: run a tool (`OperationPlan`) or stop (`Resolution`). */
export interface ActionDeterminer {
  /**
   * Rejects with `CancelledError` when `signal` aborts; any other rejection ends the pursuit as `failed` (the
   * executor never lets it escape). Invalid model output should rather resolve to a `failed` Resolution.
   */
  determineAction(input: DetermineActionInput): Promise<Decision>;
}
