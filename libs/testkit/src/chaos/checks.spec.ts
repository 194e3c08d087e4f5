import type { TraceEvent } from '@novelrag/contracts';
import { type ChaosEvidence, analyse, percentile, takeoverTimes, violations } from './checks';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const ev = (
  goalId: string,
  seq: number,
  kind: string,
  extra: Record<string, unknown> = {},
  ms = seq * 1000,
) => ({ schemaVersion: 1, goalId, seq, at: at(ms), kind, ...extra }) as unknown as TraceEvent;
const asked = (goalId: string, seq: number, id: string, step: number, ms = seq * 1000) =>
  ev(goalId, seq, 'interaction.requested', { interaction: { interactionId: id, step } }, ms);
const answered = (goalId: string, seq: number, id: string, approved: boolean) =>
  ev(goalId, seq, 'interaction.answered', { interactionId: id, answer: { approved } });
const write = (goalId: string, step: number, uris: string[]) => ({
  change: {
    schemaVersion: 1,
    uris,
    cause: 'apply',
    origin: { goalId, step, tool: 'ResourceWriteTool' },
    at: at(0),
  },
  heardAt: 0,
});

/** One goal that asked once, got the human's approval, wrote once and completed: every property holds. */
function clean(): ChaosEvidence {
  return {
    goals: [
      {
        goalId: 'g1',
        status: 'completed',
        steps: [
          {
            index: 0,
            plan: { tool: 'ResourceWriteTool' },
            outcome: { status: 'success', result: 'Created' },
          },
        ],
      },
    ],
    traces: new Map([
      [
        'g1',
        [
          ev('g1', 0, 'goal.accepted'),
          asked('g1', 1, 'i1', 0),
          answered('g1', 2, 'i1', true),
          ev('g1', 3, 'goal.completed'),
        ],
      ],
    ]),
    heard: [],
    writes: [write('g1', 0, ['/character/yugui'])] as ChaosEvidence['writes'],
    answers: [{ goalId: 'g1', interactionId: 'i1', approved: true, status: 200 }],
    faults: [],
    interactionTimeoutMs: 60_000,
  };
}

describe('chaos checks', () => {
  it('a clean run has no violation', () => {
    const report = analyse(clean());
    expect(violations(report)).toEqual({});
    expect(report).toMatchObject({
      goals: 1,
      terminal: 1,
      writes: 1,
      interactions: { asked: 1, answered: 1, expired: 0 },
    });
  });

  it('finds a write applied twice for one step, a trace gap and a second final event', () => {
    const e = clean();
    const report = analyse({
      ...e,
      writes: [...e.writes, write('g1', 0, ['/character/yugui'])] as ChaosEvidence['writes'],
      traces: new Map([
        ['g1', [ev('g1', 0, 'goal.accepted'), ev('g1', 2, 'goal.failed'), ev('g1', 3, 'goal.completed')]],
      ]),
    });
    expect(report.doubleWrites).toEqual(['g1 step 0 ResourceWriteTool apply [/character/yugui] ×2']);
    expect(report.traceGaps).toEqual(['g1: seq 1 missing of 0..3']);
    expect(report.finalEvents).toHaveLength(1);
  });

  it('a decline the human never gave is invented; an accepted answer that expired is lost', () => {
    const e = clean();
    const invented = analyse({
      ...e,
      traces: new Map([
        ['g1', [asked('g1', 0, 'i1', 0), answered('g1', 1, 'i1', false), ev('g1', 2, 'goal.completed')]],
      ]),
    });
    expect(invented.declinesInvented).toHaveLength(1);
    const lost = analyse({
      ...e,
      traces: new Map([
        [
          'g1',
          [
            asked('g1', 0, 'i1', 0),
            ev('g1', 1, 'interaction.timed_out', { interactionId: 'i1' }, 61_000),
            ev('g1', 2, 'goal.completed', {}, 62_000),
          ],
        ],
      ]),
    });
    expect(lost.answersLost).toEqual(['g1 i1: expired although the human answered true']);
  });

  it('an expiry before the configured timeout, and a "declined" result without a decline, are reported', () => {
    const e = clean();
    const report = analyse({
      ...e,
      answers: [],
      goals: [
        {
          goalId: 'g1',
          status: 'completed',
          steps: [
            {
              index: 1,
              plan: { tool: 'ResourceWriteTool' },
              outcome: {
                status: 'success',
                result: 'The user declined the operations; nothing was changed.',
              },
            },
          ],
        },
      ],
      writes: [write('g1', 1, ['/x'])] as ChaosEvidence['writes'],
      traces: new Map([
        [
          'g1',
          [
            asked('g1', 0, 'i1', 0),
            ev('g1', 1, 'interaction.timed_out', { interactionId: 'i1' }, 5_000),
            ev('g1', 2, 'goal.completed', {}, 6_000),
          ],
        ],
      ]),
    });
    expect(report.earlyExpiries).toEqual(['g1 i1: expired after 5000 ms (configured 60000)']);
    expect(report.declinesInvented).toEqual([
      'g1 step 1 ResourceWriteTool: "The user declined the operations; nothing was changed." without a human decline',
    ]);
    expect(report.outcomeMismatches).toHaveLength(1);
  });

  it('takeover: from an orchestrator kill to each resumed goal, not after a NATS restart or a runner kill', () => {
    const started = (goalId: string, attempt: number, heardAt: number) => ({
      event: ev(goalId, 5, 'goal.started', { attempt }),
      heardAt,
    });
    const faults = [
      { kind: 'orchestrator' as const, name: 'o1', at: 1_000 },
      { kind: 'tool-runner' as const, name: 'r1', at: 2_000 },
      { kind: 'nats' as const, name: 'nats-server', at: 10_000 },
    ];
    const heard = [
      started('a', 2, 4_000),
      started('b', 2, 6_500),
      started('a', 3, 7_000),
      started('c', 1, 3_000),
      started('d', 2, 12_000),
    ];
    expect(takeoverTimes(faults, heard)).toEqual([3_000, 5_500]);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 99)).toBe(4);
    expect(percentile([], 50)).toBeNaN();
  });
});
