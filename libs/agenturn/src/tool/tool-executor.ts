import type { ExecutionContext } from '../execution/execution-context';
import type { OperationOutcome, OperationPlan } from '../pursuit/step';

/**
 * Runs one planned operation. Implemented in process (`InProcessToolExecutor`) and remotely over NATS by the
 * orchestrator; both honour the same contract.
 *
 * Never rejects: an unknown or unavailable tool, parameters that do not match the tool's input schema
 * (VALIDATION_FAILED, the tool does not run), an error output, a thrown error or a deadline (TIMEOUT) all resolve to a
 * `failed` outcome (with `errorCode`), because tool failures are fed back to the model. When `signal` aborts before or
 * during the call, it resolves promptly to a `cancelled` outcome. What the tool says and asks while it runs (log lines,
 * output, progress, backlog, confirm/request) reaches `ctx`, the context given to this call.
 * `describeToolExecutorContract` (`@novelrag/agenturn/testing`) checks an implementation against all of this.
 */
export interface ToolExecutor {
  execute(plan: OperationPlan, ctx: ExecutionContext, signal?: AbortSignal): Promise<OperationOutcome>;
}
