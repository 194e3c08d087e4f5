import type { ExecutionContext } from '../execution/execution-context';
import type { OperationOutcome, OperationPlan } from '../pursuit/step';

/**
 * Runs one planned operation. Implemented in process (`InProcessToolExecutor`) and remotely over NATS by the
 * orchestrator; both honour the same contract.
 *
 * Never rejects: an unknown or unavailable tool, an error output, a thrown error or a deadline all resolve to a
 * `failed` outcome (with `errorCode`), because tool failures are fed back to the model. When `signal` aborts before or
 * during the call, it resolves promptly to a `cancelled` outcome.
 */
export interface ToolExecutor {
  execute(plan: OperationPlan, ctx: ExecutionContext, signal?: AbortSignal): Promise<OperationOutcome>;
}
