import type { InteractionHistory, OperationPlan } from '@novelrag/agenturn';
import { operationPlan } from '@novelrag/agenturn';
import type { GoalRecord, InFlightStep, ThreadRecord } from '@novelrag/contracts';
import type { AppliedLimits } from './finish';
import type { PursuitDeps } from './types';

// The small parts of a pursuit run: where it takes place, its bounds, the replayed step and the loop's limits.

/** Where a pursuit takes place: the thread, its history and the goal's language. */
export interface Scene {
  readonly thread: ThreadRecord;
  readonly history: InteractionHistory;
  readonly historyText: string;
  readonly lang: string;
}

/** The bounds of this pursuit and the goal's wall-clock deadline (epoch ms). */
export interface Bounds {
  readonly limits: AppliedLimits;
  readonly deadline: number;
}

/**
 * The step that was dispatched when the last pursuit stopped, to be executed again first (same invocation id); the
 * calls dispatched together with it are re-sent with it.
 */
export function inFlightReplay(record: GoalRecord): OperationPlan | undefined {
  const inFlight = record.inFlight;
  if (!inFlight || inFlight.index !== record.steps.length) return undefined;
  const planOf = (p: InFlightStep['plan']) => operationPlan(p.tool, p.params, p.reason);
  const group = (inFlight.group ?? []).map(planOf);
  return group.length > 0 ? { ...planOf(inFlight.plan), group } : planOf(inFlight.plan);
}

/** The agent's limits: the goal's bounds plus the loop's iteration bounds (the goal's own, else the settings'). */
export function loopLimits(limits: AppliedLimits, record: GoalRecord, settings: PursuitDeps['settings']) {
  return {
    ...limits,
    maxIterations: record.limits.maxIterations ?? settings.maxIterations,
    minIterations: settings.minIterations,
  };
}
