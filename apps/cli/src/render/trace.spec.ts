import { TraceEvent } from '@novelrag/contracts';
import { phaseOf, renderTraceEvent } from './trace';
import { PLAIN } from './text';

const base = { schemaVersion: 1, goalId: 'g-1', at: '2026-01-01T00:00:00.000Z', step: 0 };
const ev = (e: Record<string, unknown>, seq = 1) => TraceEvent.parse({ ...base, seq, ...e });
const render = (e: Record<string, unknown>, verbose = false) =>
  renderTraceEvent(ev(e), { style: PLAIN, verbose });
const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };

describe('renderTraceEvent', () => {
  it('renders each phase of a pursuit on one line', () => {
    expect(
      render({
        kind: 'discovery.plan',
        iteration: 1,
        plan: {
          discovery_analysis: 'x',
          search_queries: ['余归', 'Azure Sect'],
          query_resources: ['/character'],
          expand_tools: [],
        },
      }),
    ).toBe('[discovery #1] search: 余归, Azure Sect · load: /character · expand: —');
    expect(
      render({
        kind: 'decision',
        iteration: 2,
        decision: {
          decision_type: 'execute',
          situation_analysis: 's',
          tool: 'ResourceWrite',
          params: { operation_specification: 'create 余归' },
          confidence: 'high',
          reasoning: 'the aspect exists',
        },
      }),
    ).toBe('[decision #2] run ResourceWrite {"operation_specification":"create 余归"} — the aspect exists');
    expect(
      render({
        kind: 'analysis.verdict',
        iteration: 2,
        verdict: {
          analysis: 'ok',
          verdict: 'approve',
          approval: { ready: true, confidence: 'high', notes: '' },
          refinement: null,
        },
      }),
    ).toBe('[verdict #2] approve (high)');
    expect(
      render({
        kind: 'operation.outcome',
        invocationId: 'g-1-s0',
        tool: 'ResourceWrite',
        status: 'success',
        result: 'created /character/yugui',
        durationMs: 12,
      }),
    ).toBe('[tool] ← ResourceWrite success in 12 ms: created /character/yugui');
  });

  it('shows confirmations and answers', () => {
    expect(
      render({
        kind: 'interaction.requested',
        interaction: {
          kind: 'confirm',
          interactionId: 'i-1',
          tool: 'ResourceWrite',
          step: 0,
          message: 'Apply 2 operations?',
          createdAt: base.at,
          expiresAt: base.at,
        },
      }),
    ).toBe('[confirm] ResourceWrite asks: Apply 2 operations?');
    expect(
      render({
        kind: 'interaction.answered',
        interactionId: 'i-1',
        answer: { approved: true },
        answeredBy: 'local',
      }),
    ).toBe('[answer] approved by local');
  });

  it('hides LLM calls and context statistics unless verbose', () => {
    const call = {
      kind: 'llm.call',
      purpose: 'action_decision',
      model: 'm',
      promptTokens: 1,
      completionTokens: 2,
      latencyMs: 3,
      attempts: 1,
      ok: true,
    };
    expect(render(call)).toBeUndefined();
    expect(render(call, true)).toBe('[llm] action_decision m 1+2 tokens 3 ms');
  });

  it('ends with the outcome', () => {
    const line = render({
      kind: 'goal.completed',
      outcome: {
        status: 'completed',
        response: '余归 now exists.',
        reason: 'done',
        steps: 2,
        tokens: usage,
        finishedAt: base.at,
      },
    });
    expect(line).toBe('✔ completed after 2 step(s), 15 tokens\n余归 now exists.');
    expect(
      render({
        kind: 'goal.failed',
        outcome: {
          status: 'failed',
          response: '',
          reason: 'no aspect',
          steps: 1,
          tokens: usage,
          finishedAt: base.at,
        },
      }),
    ).toBe('✘ failed after 1 step(s), 15 tokens\nreason: no aspect');
  });

  it('maps events to phases for the progress display', () => {
    expect(
      phaseOf(
        ev({
          kind: 'refinement.plan',
          iteration: 1,
          plan: {
            relevance_analysis: '',
            exclude_resources: [],
            exclude_properties: [],
            collapse_tools: [],
            sorted_segments: [],
          },
        }),
      ),
    ).toBe('refinement');
    expect(
      phaseOf(
        ev({
          kind: 'llm.call',
          purpose: 'p',
          model: 'm',
          promptTokens: 0,
          completionTokens: 0,
          latencyMs: 0,
          attempts: 1,
          ok: true,
        }),
      ),
    ).toBeUndefined();
  });
});
