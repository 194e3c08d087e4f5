import {
  GOAL_TRANSITIONS,
  GoalStatus,
  GoalSubmission,
  TERMINAL_GOAL_STATUSES,
  canTransition,
  describeIssues,
  isTerminalStatus,
} from './index';

describe('goal status machine', () => {
  it('lists every status', () => {
    expect(Object.keys(GOAL_TRANSITIONS).sort()).toEqual([...GoalStatus.options].sort());
  });

  it('follows the happy path', () => {
    expect(canTransition('queued', 'running')).toBe(true);
    expect(canTransition('running', 'waiting_for_input')).toBe(true);
    expect(canTransition('waiting_for_input', 'running')).toBe(true);
    expect(canTransition('running', 'completed')).toBe(true);
  });

  it('allows cancel from every non-terminal status', () => {
    for (const s of GoalStatus.options) expect(canTransition(s, 'cancelled')).toBe(!isTerminalStatus(s));
  });

  it('never leaves a terminal status', () => {
    for (const from of TERMINAL_GOAL_STATUSES)
      for (const to of GoalStatus.options) expect(canTransition(from, to)).toBe(false);
  });

  it('rejects skipping and self transitions', () => {
    expect(canTransition('queued', 'completed')).toBe(false);
    expect(canTransition('queued', 'waiting_for_input')).toBe(false);
    expect(canTransition('waiting_for_input', 'completed')).toBe(false);
    for (const s of GoalStatus.options) expect(canTransition(s, s)).toBe(false);
  });

  it('knows the terminal statuses', () => {
    expect(GoalStatus.options.filter(isTerminalStatus).sort()).toEqual([
      'abandoned',
      'cancelled',
      'completed',
      'failed',
    ]);
  });
});

describe('GoalSubmission', () => {
  const base = {
    schemaVersion: 1,
    goalId: 'g1',
    beliefs: [],
    submittedAt: '2026-03-01T08:00:00Z',
    source: 'user',
  };

  it('takes a request or a goal', () => {
    expect(GoalSubmission.parse({ ...base, request: 'Create 余归' }).request).toBe('Create 余归');
    expect(GoalSubmission.parse({ ...base, goal: '余归 exists' }).goal).toBe('余归 exists');
  });

  it('rejects too many beliefs and another schema version', () => {
    const many = GoalSubmission.safeParse({
      ...base,
      request: 'r',
      beliefs: Array.from({ length: 51 }, () => 'b'),
    });
    expect(many.success || describeIssues(many.error)).toMatch(/^beliefs: /);
    const v2 = GoalSubmission.safeParse({ ...base, request: 'r', schemaVersion: 2 });
    expect(v2.success || describeIssues(v2.error)).toMatch(/^schemaVersion: /);
  });
});
