import type { NatsConnection } from '@nats-io/transport-node';
import {
  type ErrorEnvelope,
  Subjects,
  type ToolInvocation,
  type ToolOutput,
  errorEnvelope,
  isErrorEnvelope,
} from '@novelrag/contracts';
import type { GoalCancellations, StopListening } from './goal-cancellations';
import type { HostedTool } from './hosted-tool';
import type { ToolNotes } from './invocation-notes';
import type { HostLogger } from './logger';
import { errorOutput, textOfThrown, thrownOutput, toWireOutput } from './outputs';
import type { AskTiming } from './interaction-ask';
import { RemoteExecutionContext } from './remote-execution-context';

export interface RunLimits {
  readonly deadline: number;
  readonly maxResultChars: number;
  /** Stops the run from outside (another runner took the invocation over): the tool's signal aborts with its reason. */
  readonly stop?: AbortSignal;
  /** How questions are kept alive while the human decides (defaults: `DEFAULT_ASK_TIMING`). */
  readonly asking?: AskTiming;
  /** The host's shared cancel listener; without it the call subscribes to its goal's cancel subject itself. */
  readonly cancellations?: Pick<GoalCancellations, 'on'>;
  /** The invocation's durable notes (`ToolContext.notes`), when it runs at most once. */
  readonly notes?: ToolNotes;
}

/**
 * Runs one tool call under its deadline, its goal's cancellation and `limits.stop`: the tool's signal aborts when one
 * comes, and the answer (TIMEOUT / CANCELLED / the stop's reason) does not wait for a tool that ignores its signal, so
 * one stuck tool never blocks the runner. A rejection becomes an error output. An interaction answered UNAVAILABLE ends
 * the call the same way, with a retryable UNAVAILABLE; model calls beyond the invocation's `tokenBudget` with
 * BUDGET_EXHAUSTED.
 */
export async function runInvocation(
  nc: NatsConnection,
  tool: HostedTool,
  invocation: ToolInvocation,
  limits: RunLimits,
  logger: HostLogger,
  now: () => number = Date.now,
): Promise<ToolOutput> {
  const started = now();
  const elapsed = () => now() - started;
  const budget = limits.deadline - started;
  if (budget <= 0) {
    return errorOutput(errorEnvelope('TIMEOUT', `the deadline of ${tool.name} passed before it started`), 0);
  }
  const controller = new AbortController();
  // The tool's output, or the one its deadline, cancellation or stop gave first: one promise, not a race of two.
  let settle: (out: ToolOutput) => void = () => undefined;
  let fail: (err: unknown) => void = () => undefined;
  const ended = new Promise<ToolOutput>((resolve, reject) => ((settle = resolve), (fail = reject)));
  const timer = setTimeout(() => {
    controller.abort(errorEnvelope('TIMEOUT', 'deadline'));
    settle(
      errorOutput(errorEnvelope('TIMEOUT', `${tool.name} did not finish within ${budget} ms`), elapsed()),
    );
  }, budget);
  const onCancel = () => {
    controller.abort(errorEnvelope('CANCELLED', 'goal cancelled'));
    settle(
      errorOutput(errorEnvelope('CANCELLED', `the goal was cancelled while ${tool.name} ran`), elapsed()),
    );
  };
  const stopListening = listenForCancel(nc, invocation.goalId, onCancel, limits.cancellations);
  /** Ends the call now with `error`, whatever the tool still does. */
  const end = (error: ErrorEnvelope) => {
    controller.abort(error);
    settle(errorOutput(error, elapsed()));
  };
  const onStop = () => {
    const reason: unknown = limits.stop?.reason;
    end(isErrorEnvelope(reason) ? reason : errorEnvelope('UNAVAILABLE', `${tool.name} was stopped`));
  };
  if (limits.stop?.aborted) onStop();
  else limits.stop?.addEventListener('abort', onStop, { once: true });
  // An interaction answered UNAVAILABLE ends the call as a retryable failure whatever the tool makes of it, so the
  // result is not recorded and the re-sent invocation runs (and asks) again.
  const onUnavailable = (message: string) => end(errorEnvelope('UNAVAILABLE', message));
  // The goal's token budget is enforced here too: the tool stops once its own model calls used what the goal had left.
  const onBudgetExhausted = (message: string) => end(errorEnvelope('BUDGET_EXHAUSTED', message));
  const ctx = new RemoteExecutionContext(
    nc,
    invocation,
    limits.deadline,
    controller.signal,
    logger,
    now,
    onUnavailable,
    limits.asking,
    onBudgetExhausted,
    limits.notes,
  );
  (async (): Promise<ToolOutput> => {
    try {
      const out = await tool.call(ctx, invocation.params, controller.signal);
      return toWireOutput(out, limits.maxResultChars, elapsed());
    } catch (err) {
      if (!(err instanceof Error && 'code' in err)) {
        logger.warn('tool threw', {
          tool: tool.name,
          invocationId: invocation.invocationId,
          error: textOfThrown(err),
        });
      }
      return thrownOutput(err, tool.name, elapsed());
    }
  })().then(settle, fail);
  try {
    return await ended;
  } finally {
    clearTimeout(timer);
    stopListening();
    limits.stop?.removeEventListener('abort', onStop);
    if (!controller.signal.aborted) controller.abort(errorEnvelope('CANCELLED', 'invocation finished'));
  }
}

function listenForCancel(
  nc: NatsConnection,
  goalId: string,
  onCancel: () => void,
  shared: Pick<GoalCancellations, 'on'> | undefined,
): StopListening {
  if (shared) return shared.on(goalId, onCancel);
  const sub = nc.subscribe(Subjects.goalCancel(goalId), {
    callback: (err) => {
      if (!err) onCancel();
    },
  });
  return () => sub.unsubscribe();
}
