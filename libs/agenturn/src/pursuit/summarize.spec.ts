import { autonomousGoal, describeGoal, userGoal } from '../goal/goal';
import { pursuitStatusOf, type PursuitOutcome } from './pursuit';
import { operationPlan, resolution, type OperationOutcome } from './step';
import { summarizeOutcome, truncateText } from './summarize';

const goal = userGoal('Create 余归', 'please create 余归');

function step(tool: string, ok: boolean, text: string): OperationOutcome {
  return {
    operation: operationPlan(tool, {}, `reason for ${tool}`),
    status: ok ? 'success' : 'failed',
    result: ok ? text : null,
    errorMessage: ok ? null : text,
    startedAt: '2026-01-01T00:00:00.000Z',
    completedAt: '2026-01-01T00:00:01.000Z',
  };
}

function outcome(partial: Partial<PursuitOutcome>): PursuitOutcome {
  return {
    goal,
    status: 'completed',
    reason: 'all done',
    response: 'Created.',
    executedSteps: [],
    resolution: resolution('success', 'Created.', 'all done'),
    resolvedAt: '2026-01-01T00:00:02.000Z',
    ...partial,
  };
}

describe('summarizeOutcome', () => {
  it('writes goal, status, steps with ✓/✗ and their result or error, then the response', () => {
    const text = summarizeOutcome(
      outcome({ executedSteps: [step('search', true, 'found 2'), step('write', false, 'conflict')] }),
    );
    expect(text).toBe(
      [
        'Goal: Create 余归',
        'Status: completed',
        'Steps executed: 2',
        'Steps:',
        '  1. ✓ search: reason for search',
        '     Result: found 2',
        '  2. ✗ write: reason for write',
        '     Error: conflict',
        'Response: Created.',
      ].join('\n'),
    );
  });

  it('adds the reason when the pursuit did not complete, and omits the step list when there are none', () => {
    const text = summarizeOutcome(
      outcome({ status: 'failed', reason: 'repository offline', response: 'Sorry.' }),
    );
    expect(text.split('\n')).toEqual([
      'Goal: Create 余归',
      'Status: failed',
      'Steps executed: 0',
      'Reason: repository offline',
      'Response: Sorry.',
    ]);
  });

  it('truncates results and the response at the defaults (300 / 500) and marks the cut', () => {
    const long = 'x'.repeat(400);
    const text = summarizeOutcome(
      outcome({ executedSteps: [step('read', true, long)], response: 'y'.repeat(600) }),
    );
    expect(text).toContain(`Result: ${'x'.repeat(300)}… [truncated, 100 more chars]`);
    expect(text).toContain(`Response: ${'y'.repeat(500)}… [truncated, 100 more chars]`);
  });

  it('honours custom limits', () => {
    const text = summarizeOutcome(
      outcome({ executedSteps: [step('read', false, 'abcdefgh')], response: '123456' }),
      {
        maxResultLen: 3,
        maxResponseLen: 4,
      },
    );
    expect(text).toContain('Error: abc… [truncated, 5 more chars]');
    expect(text).toContain('Response: 1234… [truncated, 2 more chars]');
  });

  it('marks cancelled steps', () => {
    const cancelled: OperationOutcome = {
      ...step('slow', false, 'Tool slow was cancelled'),
      status: 'cancelled',
    };
    expect(summarizeOutcome(outcome({ status: 'cancelled', executedSteps: [cancelled] }))).toContain(
      '  1. ✗ slow: reason for slow (cancelled)',
    );
  });

  it('leaves short text alone', () => {
    expect(truncateText('abc', 3)).toBe('abc');
  });
});

describe('pursuitStatusOf', () => {
  it('maps resolutions to pursuit statuses (incomplete is not completed)', () => {
    expect(pursuitStatusOf('success')).toBe('completed');
    expect(pursuitStatusOf('failed')).toBe('failed');
    expect(pursuitStatusOf('incomplete')).toBe('abandoned');
    expect(pursuitStatusOf('abandoned')).toBe('abandoned');
  });
});

describe('describeGoal', () => {
  it('writes two lines with the source', () => {
    expect(describeGoal(goal)).toBe('Goal: Create 余归\nSource: UserRequest(please create 余归)');
    expect(describeGoal(autonomousGoal('Tidy the backlog', 'backlog', 'item 3'))).toBe(
      'Goal: Tidy the backlog\nSource: Autonomous[backlog](item 3)',
    );
  });
});
