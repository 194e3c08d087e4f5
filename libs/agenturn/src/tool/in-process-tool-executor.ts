import { isAgenturnError, toErrorInfo } from '../errors/error-info';
import { DeadlineExceededError } from '../errors/errors';
import { systemClock, type Clock } from '../execution/clock';
import type { ExecutionContext } from '../execution/execution-context';
import type { OperationOutcome, OperationPlan, StepStatus } from '../pursuit/step';
import { paramProblem } from './param-check';
import type { ToolCatalog } from './tool-catalog';
import type { ToolExecutor } from './tool-executor';
import { isToolOutput } from './tool-output';

export interface InProcessToolExecutorOptions {
  readonly clock?: Clock;
}

type Settled =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: unknown };

/**
 * Calls tools of a catalog in this process. Honours the `ToolExecutor` contract: never rejects; parameters that do not
 * match the tool's input schema fail with VALIDATION_FAILED before the tool runs; a tool's
 * `timeoutMs` aborts the call's signal and fails the step with `TIMEOUT`; aborting `signal` resolves at once to a
 * `cancelled` outcome even if the tool ignores its signal (its late result is dropped).
 */
export class InProcessToolExecutor implements ToolExecutor {
  private readonly clock: Clock;

  constructor(
    private readonly catalog: ToolCatalog,
    options: InProcessToolExecutorOptions = {},
  ) {
    this.clock = options.clock ?? systemClock;
  }

  async execute(plan: OperationPlan, ctx: ExecutionContext, signal?: AbortSignal): Promise<OperationOutcome> {
    const startedAt = new Date(this.clock.now()).toISOString();
    const finish = (
      status: StepStatus,
      result: string | null,
      errorMessage: string | null,
      errorCode?: string,
    ) => ({
      operation: plan,
      status,
      result,
      errorMessage,
      ...(errorCode === undefined ? {} : { errorCode }),
      startedAt,
      completedAt: new Date(this.clock.now()).toISOString(),
    });
    const cancelled = () => finish('cancelled', null, `Tool ${plan.tool} was cancelled`, 'CANCELLED');

    if (signal?.aborted) return cancelled();
    const tool = this.catalog.get(plan.tool);
    if (tool === undefined) return finish('failed', null, `Tool ${plan.tool} not found`, 'TOOL_NOT_FOUND');
    if (!this.catalog.isAvailable(plan.tool)) {
      return finish('failed', null, `Tool ${plan.tool} is currently unavailable`, 'UNAVAILABLE');
    }
    const problem = paramProblem(tool.inputSchema, plan.parameters);
    if (problem !== undefined) {
      return finish('failed', null, `Invalid parameters for ${plan.tool}: ${problem}`, 'VALIDATION_FAILED');
    }

    const controller = new AbortController();
    const forwardAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', forwardAbort, { once: true });
    let deadline: DeadlineExceededError | undefined;
    const timer =
      tool.timeoutMs !== undefined && Number.isFinite(tool.timeoutMs)
        ? setTimeout(() => {
            deadline = new DeadlineExceededError(`tool ${plan.tool}`, tool.timeoutMs ?? 0);
            controller.abort(deadline);
          }, tool.timeoutMs)
        : undefined;
    const aborted = new Promise<'aborted'>((resolve) => {
      if (controller.signal.aborted) resolve('aborted');
      controller.signal.addEventListener('abort', () => resolve('aborted'), { once: true });
    });

    try {
      ctx.debug(`Calling tool ${plan.tool}`);
      // Promise.resolve().then turns a synchronous throw inside call() into a rejection.
      const call: Promise<Settled> = Promise.resolve()
        .then(() => tool.call(ctx, plan.parameters, controller.signal))
        .then(
          (value): Settled => ({ ok: true, value }),
          (error: unknown): Settled => ({ ok: false, error }),
        );
      const settled = await Promise.race([call, aborted]);
      if (settled === 'aborted' || !settled.ok) {
        if (signal?.aborted) return cancelled();
        if (deadline !== undefined) return finish('failed', null, deadline.message, deadline.code);
      }
      if (settled === 'aborted') return cancelled(); // unreachable: only our two sources abort the controller
      if (!settled.ok) {
        const info = toErrorInfo(settled.error);
        return finish(
          'failed',
          null,
          info.message,
          isAgenturnError(settled.error) ? info.code : 'TOOL_FAILED',
        );
      }
      const output = settled.value;
      if (!isToolOutput(output)) {
        return finish('failed', null, `Tool ${plan.tool} returned an invalid output`, 'TOOL_FAILED');
      }
      return output.type === 'result'
        ? finish('success', output.result, null)
        : finish('failed', null, output.errorMessage, output.code ?? 'TOOL_FAILED');
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', forwardAbort);
    }
  }
}
