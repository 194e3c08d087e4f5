import { toErrorInfo } from '../errors/error-info';
import { userGoal } from '../goal/goal';
import type { GoalTranslator } from '../goal/goal-translator';
import type { InteractionHistory } from '../goal/interaction-history';
import type { PursuitOutcome } from '../pursuit/pursuit';
import { systemClock, type Clock } from './clock';
import type { GoalExecutor } from './goal-executor';

export interface HandleRequestOptions {
  readonly signal?: AbortSignal;
  readonly history?: InteractionHistory;
}

/** Serves a user's request: translate it into a goal, then pursue the goal. */
export class RequestHandler {
  private readonly clock: Clock;

  constructor(
    private readonly translator: GoalTranslator,
    private readonly executor: GoalExecutor,
    options: { readonly clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? systemClock;
  }

  /**
   * Never rejects. When translation fails the outcome is `failed` (or `cancelled` if `signal` aborted), with no steps
   * and a goal whose description is the raw request, so that the caller still gets one outcome per request.
   */
  async handleRequest(request: string, options: HandleRequestOptions = {}): Promise<PursuitOutcome> {
    const { ctx } = this.executor;
    let goal;
    try {
      goal = await this.translator.translate(request, this.executor.beliefs, options.history, options.signal);
    } catch (e) {
      const fallbackGoal = userGoal(request, request, new Date(this.clock.now()));
      const resolvedAt = new Date(this.clock.now()).toISOString();
      if (options.signal?.aborted) {
        ctx.info('Request cancelled before it became a goal');
        return {
          goal: fallbackGoal,
          status: 'cancelled',
          reason: 'Pursuit cancelled',
          response: 'The request was cancelled before it was translated into a goal.',
          executedSteps: [],
          resolution: null,
          resolvedAt,
        };
      }
      const error = toErrorInfo(e);
      ctx.error(`Could not translate the request into a goal: ${error.message}`);
      const reason = `Pursuit failed: could not translate the request into a goal (${error.code}): ${error.message}`;
      return {
        goal: fallbackGoal,
        status: 'failed',
        reason,
        response: `${reason}. No steps were executed.`,
        executedSteps: [],
        resolution: null,
        error,
        resolvedAt,
      };
    }
    return this.executor.handleGoal(goal, options);
  }
}
