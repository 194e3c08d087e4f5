import { newGoalRecord } from '@novelrag/bus';
import { type PursuitOutcome, operationPlan, userGoal } from '@novelrag/agenturn';
import { GoalRecord, GoalSubmission, SCHEMA_VERSION, StepRecord } from '@novelrag/contracts';
import { finalEvent, finalOutcome, limitHitEvent } from './finish';
import { fitRecord, goalOutcomeOf, outcomeOfStep, stepRecordOf } from './records';
import type { GoalTrace } from './trace';

const at = '2026-01-02T03:04:05.000Z';
const plan = operationPlan('create_character', { name: '余归', skip: undefined }, 'she is missing');

describe('goal records', () => {
  it('a submission becomes a valid queued record in its own thread unless it names one', () => {
    const submission = GoalSubmission.parse({
      schemaVersion: SCHEMA_VERSION,
      goalId: 'g-1',
      request: 'create 余归',
      beliefs: ['xianxia'],
      submittedAt: at,
      source: 'user',
    });
    const record = GoalRecord.parse(newGoalRecord(submission, at));
    expect(record).toMatchObject({ status: 'queued', threadId: 'g-1', goal: null, request: 'create 余归' });
    expect(newGoalRecord({ ...submission, threadId: 'novel' }, at).threadId).toBe('novel');
  });

  it('keeps a long goal with large results within the KV value budget, clipping the oldest results first', () => {
    const base = newGoalRecord(
      GoalSubmission.parse({
        schemaVersion: SCHEMA_VERSION,
        goalId: 'g-big',
        goal: 'read everything',
        beliefs: [],
        submittedAt: at,
        source: 'user',
      }),
      at,
    );
    const step = (index: number, result: string) =>
      stepRecordOf(
        index,
        {
          operation: plan,
          status: 'success',
          result,
          errorMessage: null,
          startedAt: at,
          completedAt: at,
        },
        `g-big-s${index}`,
      );
    const small = { ...base, steps: [step(0, 'short')] };
    expect(fitRecord(small)).toBe(small);
    // 12 results of 100 000 characters (the tool result cap): 1.2 MB, over a NATS message.
    const big = { ...base, steps: Array.from({ length: 12 }, (_, i) => step(i, 'r'.repeat(100_000))) };
    const fitted = fitRecord(big);
    expect(Buffer.byteLength(JSON.stringify(fitted))).toBeLessThanOrEqual(768 * 1024);
    const lengths = fitted.steps.map((s) => s.outcome.result?.length ?? 0);
    expect(lengths[0]).toBeLessThan(2_200); // the oldest were clipped…
    expect(lengths[11]).toBe(100_000); // …the newest kept whole
    expect(fitted.steps[0]?.outcome.result).toMatch(/^r{2000}… \[clipped from 100000 characters/);
    expect(GoalRecord.parse(fitted)).toBeTruthy();
  });

  it('steps round-trip through the checkpoint (success and failure)', () => {
    const ok = {
      operation: plan,
      status: 'success' as const,
      result: 'created',
      errorMessage: null,
      startedAt: at,
      completedAt: at,
    };
    const stored = StepRecord.parse(stepRecordOf(0, ok, 'g-1-s0'));
    expect(stored).toMatchObject({
      index: 0,
      plan: { params: { name: '余归' } },
      outcome: { invocationId: 'g-1-s0' },
    });
    expect(outcomeOfStep(stored)).toEqual({
      ...ok,
      operation: operationPlan('create_character', { name: '余归' }, 'she is missing'),
    });

    const failed = {
      ...ok,
      status: 'failed' as const,
      result: null,
      errorMessage: 'boom',
      errorCode: 'MY_OWN_CODE',
    };
    const storedFail = StepRecord.parse(stepRecordOf(1, failed, 'g-1-s1'));
    // A tool's own code is not one of ours: stored as TOOL_FAILED, the message kept.
    expect(storedFail.outcome.error).toMatchObject({ code: 'TOOL_FAILED', message: 'boom' });
    expect(outcomeOfStep(storedFail)).toMatchObject({
      status: 'failed',
      errorMessage: 'boom',
      errorCode: 'TOOL_FAILED',
    });
  });

  const pursuit = (extra: Partial<PursuitOutcome> = {}): PursuitOutcome => ({
    goal: userGoal('g', 'r'),
    status: 'cancelled',
    reason: 'Pursuit cancelled',
    response: 'The pursuit was cancelled. No steps were executed.',
    executedSteps: [],
    resolution: null,
    resolvedAt: at,
    ...extra,
  });
  const tokens = { promptTokens: 90, completionTokens: 30, totalTokens: 120 };
  const trace = { usage: tokens } as GoalTrace;
  const limits = { maxSteps: 3, wallClockMs: 60_000, tokenBudget: 100, startedAt: 0 };

  it('a stop caused by the token budget is an abandoned goal with token_budget, not a cancellation', () => {
    const outcome = finalOutcome(pursuit(), trace, true, limits);
    expect(outcome).toMatchObject({ status: 'abandoned', limitHit: 'token_budget', tokens });
    expect(outcome.reason).toBe('Token budget exhausted: 120 tokens used (limit 100)');
    expect(outcome.response).toContain('No steps were executed');
    expect(limitHitEvent('token_budget', outcome, limits, 0)).toEqual({
      kind: 'limit.hit',
      limit: 'token_budget',
      max: 100,
      value: 120,
    });
    expect(finalOutcome(pursuit(), trace, false, limits).status).toBe('cancelled');
  });

  it('ends every goal with the trace event named after its status (an incomplete Finalize is abandoned)', () => {
    const incomplete = goalOutcomeOf(
      pursuit({
        status: 'abandoned',
        resolution: { kind: 'resolution', status: 'incomplete', reason: 'r', response: 'x' },
      }),
      tokens,
    );
    expect(finalEvent(incomplete)).toEqual({ kind: 'goal.abandoned', outcome: incomplete });
    for (const status of ['completed', 'failed', 'abandoned', 'cancelled'] as const) {
      expect(finalEvent({ ...incomplete, status }).kind).toBe(`goal.${status}`);
    }
  });

  it('maps the executor outcome (resolution status, limit, error code)', () => {
    const resolved = goalOutcomeOf(
      pursuit({
        status: 'abandoned',
        resolution: { kind: 'resolution', status: 'incomplete', reason: 'r', response: 'x' },
      }),
      tokens,
    );
    expect(resolved).toMatchObject({ status: 'abandoned', resolutionStatus: 'incomplete', steps: 0 });
    const failed = goalOutcomeOf(
      pursuit({ status: 'failed', error: { code: 'MODEL_OUTPUT_INVALID', message: 'bad', retryable: true } }),
      tokens,
    );
    expect(failed.error).toMatchObject({ code: 'MODEL_OUTPUT_INVALID' });
    const steps = goalOutcomeOf(pursuit({ status: 'abandoned', limitHit: 'max_steps' }), tokens);
    expect(limitHitEvent('max_steps', steps, limits, 0)).toMatchObject({ max: 3, value: 0 });
  });
});
