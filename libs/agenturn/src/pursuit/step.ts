/** How one executed step ended. `cancelled`: the goal's signal aborted while the tool ran. */
export type StepStatus = 'success' | 'failed' | 'cancelled';

/** The determiner's decision to run one tool. `parameters` must match the tool's JSON input schema. */
export interface OperationPlan {
  readonly kind: 'operation';
  readonly reason: string;
  readonly tool: string;
  readonly parameters: Readonly<Record<string, unknown>>;
  /**
   * Further independent calls decided together with this one. They run at the same time as it (the executor
   * serialises calls on the same resource) and are recorded as the steps right after it, in this order.
   */
  readonly group?: readonly OperationPlan[];
}

/**
 * How the determiner judges the pursuit when it stops: `success` goal achieved; `failed` it cannot be achieved;
 * `incomplete` partly done and nothing more can be done now; `abandoned` given up without a verdict (fallback).
 */
export type ResolutionStatus = 'success' | 'failed' | 'incomplete' | 'abandoned';

/** The determiner's decision to stop, with the answer for the user. */
export interface Resolution {
  readonly kind: 'resolution';
  readonly reason: string;
  readonly response: string;
  readonly status: ResolutionStatus;
}

/** What the determiner returns each step. Discriminate on `kind`. */
export type Decision = OperationPlan | Resolution;

/** One executed step. Exactly one of `result` / `errorMessage` is non-null (`result` on success). */
export interface OperationOutcome {
  readonly operation: OperationPlan;
  readonly status: StepStatus;
  readonly result: string | null;
  readonly errorMessage: string | null;
  /** An error code (agenturn/wire list or a tool's own) when the step did not succeed. */
  readonly errorCode?: string;
  /** ISO-8601. */
  readonly startedAt: string;
  /** ISO-8601. */
  readonly completedAt: string;
}

export function operationPlan(
  tool: string,
  parameters: Readonly<Record<string, unknown>>,
  reason: string,
): OperationPlan {
  return { kind: 'operation', reason, tool, parameters };
}

export function resolution(status: ResolutionStatus, response: string, reason: string): Resolution {
  return { kind: 'resolution', reason, response, status };
}

export function isResolution(decision: Decision): decision is Resolution {
  return decision.kind === 'resolution';
}
