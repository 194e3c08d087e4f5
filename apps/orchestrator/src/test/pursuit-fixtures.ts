// Shared fixtures of the orchestrator's pursuit tests (unit and int): a logger that writes nothing and the settings
// the in-process pursuits run with.
import { InProcessToolExecutor, type ToolCatalog } from '@novelrag/agenturn';
import type { ContextLogger } from '@novelrag/bus';
import { type InteractionRequest, SCHEMA_VERSION, Subjects, ToolInvocation } from '@novelrag/contracts';
import type { PursuitDeps, PursuitSettings } from '../pursuit/types';

export const silentLog = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
} as unknown as ContextLogger;

export const testSettings: PursuitSettings = {
  maxSteps: 10,
  maxIterations: 3,
  minIterations: 1,
  wallClockMs: 60_000,
  tokenBudget: 0,
  interactionTimeoutMs: 5_000,
  threadWaitMs: 5_000,
  toolTimeoutMs: 5_000,
  maxAttempts: 3,
  defaultLang: 'en',
  cancelPollMs: 500,
  toolClaimGraceMs: 2_000,
};

/** A running tool call (goal-1, step 2) and the confirmation it asks, for the interaction tests. */
export const askingCall = ToolInvocation.parse({
  schemaVersion: SCHEMA_VERSION,
  invocationId: 'inv-1',
  goalId: 'goal-1',
  step: 2,
  tool: 'apply',
  params: {},
  deadline: Date.now() + 600_000,
  runtimeSubject: Subjects.goalRuntime('goal-1'),
  interactSubject: Subjects.goalInteract('goal-1'),
});
export const askedConfirm: Extract<InteractionRequest, { kind: 'confirm' }> = {
  schemaVersion: SCHEMA_VERSION,
  goalId: 'goal-1',
  invocationId: 'inv-1',
  step: 2,
  kind: 'confirm',
  message: 'apply?',
};

/** Runs the pursuits' tool calls in process, on the given catalog (no bus). */
export function inProcessExecutors(catalog: ToolCatalog): PursuitDeps['executors'] {
  return () => {
    const inProcess = new InProcessToolExecutor(catalog);
    return { execute: (plan, ctx, signal) => inProcess.execute(plan, ctx, signal), running: () => undefined };
  };
}
