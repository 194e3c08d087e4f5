import type {
  ActionDeterminer,
  DetermineActionInput,
  ExecutionContext,
  OperationOutcome,
  OperationPlan,
  ToolExecutor,
} from '@novelrag/agenturn';
import { type Context, runInContext } from '@novelrag/telemetry';

/** Where a pursuit's step spans come from (`GoalSpans`); absent in tests that do not trace. */
export interface StepSpans {
  /** The context of step `index`, its span started on first use. */
  stepContext(index: number): Context;
  /** The context of the step being worked on now. */
  currentContext(): Context;
}

/** Runs each decision inside its step's span (the step index is the number of steps executed so far). */
export function spannedDeterminer(inner: ActionDeterminer, spans: StepSpans): ActionDeterminer {
  return {
    determineAction: (input: DetermineActionInput) =>
      runInContext(spans.stepContext(input.progress.executedSteps.length), () =>
        inner.determineAction(input),
      ),
  };
}

/** Runs each tool call inside the span of the step that decided it. */
export function spannedExecutor(inner: ToolExecutor, spans: StepSpans): ToolExecutor {
  return {
    execute: (plan: OperationPlan, ctx: ExecutionContext, signal?: AbortSignal): Promise<OperationOutcome> =>
      runInContext(spans.currentContext(), () => inner.execute(plan, ctx, signal)),
  };
}
