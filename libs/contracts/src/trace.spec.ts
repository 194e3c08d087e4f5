import { FINAL_TRACE_KINDS, TRACE_KINDS, TraceEvent, TraceKind, describeIssues } from './index';

const base = { schemaVersion: 1, goalId: 'g-1', seq: 3, at: '2026-03-01T08:00:00Z' } as const;

describe('TraceEvent', () => {
  it('has exactly the documented kinds', () => {
    expect([...TRACE_KINDS].sort()).toEqual(
      [
        'goal.accepted',
        'goal.started',
        'goal.status_changed',
        'goal.completed',
        'goal.failed',
        'goal.abandoned',
        'goal.cancelled',
        'assessment',
        'discovery.plan',
        'refinement.plan',
        'context.updated',
        'decision',
        'analysis.verdict',
        'operation.dispatched',
        'operation.outcome',
        'interaction.requested',
        'interaction.answered',
        'interaction.timed_out',
        'runtime',
        'llm.call',
        'resolution',
        'limit.hit',
        'assistant.state',
        'assistant.plan',
        'assistant.tools',
        'assistant.output',
        'rag.route',
        'rag.retrieve',
        'rag.grade',
        'rag.rewrite',
        'rag.answer',
      ].sort(),
    );
    expect(TraceKind.safeParse('goal.paused').success).toBe(false);
    for (const k of FINAL_TRACE_KINDS) expect(TRACE_KINDS).toContain(k);
  });

  it('parses a finalize decision and a relevance plan', () => {
    const decision = TraceEvent.parse({
      ...base,
      step: 2,
      kind: 'decision',
      iteration: 3,
      decision: {
        decision_type: 'finalize',
        situation_analysis: '余归 already exists',
        status: 'success',
        response: '余归是青云宗的内门弟子。',
        evidence: ['Resource Segment #2'],
        gaps: [],
      },
    });
    expect(decision.kind === 'decision' && decision.decision.decision_type).toBe('finalize');
    const plan = TraceEvent.parse({
      ...base,
      kind: 'refinement.plan',
      iteration: 1,
      plan: {
        relevance_analysis: 'location is unrelated',
        exclude_resources: ['/location'],
        exclude_properties: [{ uri: '/character/余归', property: 'appearance' }],
        collapse_tools: [],
        sorted_segments: ['/character/余归', '/'],
      },
    });
    expect(plan.kind).toBe('refinement.plan');
  });

  it('wraps runtime events and rejects a mismatched payload', () => {
    const ok = TraceEvent.safeParse({
      ...base,
      kind: 'runtime',
      event: { ...base, invocationId: 'inv-1', step: 0, kind: 'info', message: 'hi' },
    });
    expect(ok.success).toBe(true);
    const bad = TraceEvent.safeParse({ ...base, kind: 'runtime', event: { kind: 'info', message: 'hi' } });
    expect(bad.success || describeIssues(bad.error)).toMatch(/event\.invocationId: /);
  });

  it('drops unknown keys so consumers stay forward-compatible', () => {
    const parsed = TraceEvent.parse({
      ...base,
      kind: 'interaction.timed_out',
      interactionId: 'ia-1',
      future: 1,
    });
    expect(parsed).not.toHaveProperty('future');
  });
});
