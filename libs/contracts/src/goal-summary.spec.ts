import { GoalRecord, GoalSummary, SCHEMA_VERSION, SUMMARY_TITLE_CHARS, summarizeGoal } from './index';

const base = GoalRecord.parse({
  schemaVersion: SCHEMA_VERSION,
  goalId: 'g-1',
  threadId: 't-1',
  status: 'running',
  source: 'user',
  goal: null,
  request: '创建主角余归',
  lang: 'zh',
  beliefs: [],
  limits: {},
  steps: [],
  usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
  cancelRequested: false,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:01.000Z',
});

describe('summarizeGoal', () => {
  it('keeps what a goals table shows and parses as a GoalSummary', () => {
    const summary = GoalSummary.parse(summarizeGoal(base));
    expect(summary).toEqual({
      goalId: 'g-1',
      threadId: 't-1',
      agent: 'novelrag',
      status: 'running',
      phase: 'pursuing',
      source: 'user',
      title: '创建主角余归',
      lang: 'zh',
      steps: 0,
      tool: null,
      totalTokens: 15,
      pending: null,
      cancelRequested: false,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:01.000Z',
      finishedAt: null,
    });
  });

  it('names the phase from the record: interaction, operation, ended, queued', () => {
    const pending = summarizeGoal({
      ...base,
      status: 'waiting_for_input',
      pendingInteraction: {
        kind: 'confirm',
        interactionId: 'i-1',
        tool: 'ResourceWriteTool',
        step: 2,
        message: 'Write?',
        createdAt: base.createdAt,
        expiresAt: base.updatedAt,
      },
    });
    expect([pending.phase, pending.pending]).toEqual([
      'interaction',
      { interactionId: 'i-1', kind: 'confirm' },
    ]);
    const inFlight = summarizeGoal({
      ...base,
      inFlight: {
        index: 0,
        plan: { tool: 'AspectCreateTool', params: {}, reason: 'r' },
        invocationId: 'inv-1',
        dispatchedAt: base.updatedAt,
      },
    });
    expect([inFlight.phase, inFlight.tool]).toEqual(['operation', 'AspectCreateTool']);
    expect(summarizeGoal({ ...base, status: 'cancelled' }).phase).toBe('ended');
    expect(summarizeGoal({ ...base, status: 'queued' }).phase).toBe('queued');
  });

  it('clips long titles and uses an agent kind the record carries', () => {
    const long = summarizeGoal({ ...base, goal: 'x'.repeat(5_000), agent: 'qa' } as unknown as GoalRecord);
    expect(long.title).toHaveLength(SUMMARY_TITLE_CHARS);
    expect(long.title.endsWith('…')).toBe(true);
    expect(long.agent).toBe('qa');
  });
});
