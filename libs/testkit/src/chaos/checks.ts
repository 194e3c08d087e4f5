import { FINAL_TRACE_KINDS, type TraceEvent } from '@novelrag/contracts';
import type { Fault } from './faults';
import type { HumanAnswer } from './human';
import type { HeardEvent, HeardWrite } from './observe';

/** A goal as `GET /v1/goals/:id` reports it at the end of the run (the fields the checks read). */
export interface GoalView {
  readonly goalId: string;
  readonly status: string;
  readonly steps: readonly {
    readonly index: number;
    readonly plan: { readonly tool: string };
    readonly outcome: { readonly status: string; readonly result?: string };
  }[];
}

export interface ChaosEvidence {
  readonly goals: readonly GoalView[];
  /** Each goal's events as the TRACE stream stores them. */
  readonly traces: ReadonlyMap<string, readonly TraceEvent[]>;
  readonly heard: readonly HeardEvent[];
  readonly writes: readonly HeardWrite[];
  readonly answers: readonly HumanAnswer[];
  readonly faults: readonly Fault[];
  readonly interactionTimeoutMs: number;
}

/** What the run found. Every list names its cases (empty = the property held). */
export interface ChaosReport {
  readonly goals: number;
  readonly terminal: number;
  /** Each goal not terminal at the bound, with its status and last trace events (for the diagnosis). */
  readonly notTerminal: string[];
  readonly statuses: Record<string, number>;
  readonly writes: number;
  readonly doubleWrites: string[];
  readonly traceGaps: string[];
  readonly finalEvents: string[];
  readonly answersLost: string[];
  readonly declinesInvented: string[];
  readonly unresolvedInteractions: string[];
  readonly earlyExpiries: string[];
  readonly outcomeMismatches: string[];
  readonly interactions: { asked: number; answered: number; expired: number };
  readonly takeoverMs: number[];
  /** The faults injected, e.g. `orchestrator chaos-orch-1`. */
  readonly faults: string[];
}

const TERMINAL = ['completed', 'failed', 'abandoned', 'cancelled'];
const accepted = (a: HumanAnswer) => a.status >= 200 && a.status < 300;

/** No committed write heard twice for the same step: same goal, step, tool, cause and URIs. */
function doubleWrites(writes: readonly HeardWrite[]): string[] {
  const seen = new Map<string, number>();
  for (const { change } of writes) {
    const o = change.origin;
    if (!o?.goalId) continue;
    const key = `${o.goalId} step ${o.step} ${o.tool} ${change.cause} [${[...change.uris].sort().join(',')}]`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return [...seen].filter(([, n]) => n > 1).map(([key, n]) => `${key} ×${n}`);
}

/** Seqs 0..n-1 with none missing, each held by one event, and exactly one final event, the last. */
function traceProblems(goalId: string, events: readonly TraceEvent[]): { gaps: string[]; finals: string[] } {
  const bySeq = new Map<number, TraceEvent>();
  const gaps: string[] = [];
  for (const e of events) {
    const held = bySeq.get(e.seq);
    if (held && held.kind !== e.kind) gaps.push(`${goalId}: seq ${e.seq} holds ${held.kind} and ${e.kind}`);
    bySeq.set(e.seq, e);
  }
  const max = Math.max(-1, ...bySeq.keys());
  for (let s = 0; s <= max; s++) if (!bySeq.has(s)) gaps.push(`${goalId}: seq ${s} missing of 0..${max}`);
  const finals = [...bySeq.values()].filter((e) => FINAL_TRACE_KINDS.includes(e.kind));
  const finalProblems =
    finals.length === 1 && finals[0]?.seq === max
      ? []
      : [`${goalId}: ${finals.length} final events (${finals.map((f) => `${f.kind}@${f.seq}`).join(', ')})`];
  return { gaps, finals: finalProblems };
}

interface InteractionFindings {
  lost: string[];
  invented: string[];
  unresolved: string[];
  early: string[];
  asked: number;
  answered: number;
  expired: number;
  /** goal|step of every interaction the human declined or that expired (a legitimate "declined"). */
  declinedSteps: Set<string>;
}

/** Every question answered as the human answered it or expired no earlier than configured; nothing invented. */
function interactionFindings(e: ChaosEvidence): InteractionFindings {
  const f: InteractionFindings = {
    lost: [],
    invented: [],
    unresolved: [],
    early: [],
    asked: 0,
    answered: 0,
    expired: 0,
    declinedSteps: new Set(),
  };
  for (const [goalId, events] of e.traces) {
    for (const req of events) {
      if (req.kind !== 'interaction.requested') continue;
      f.asked++;
      const { interactionId: id, step } = req.interaction;
      const human = e.answers.find((a) => a.interactionId === id && accepted(a));
      const answered = events.find((x) => x.kind === 'interaction.answered' && x.interactionId === id);
      const expired = events.find((x) => x.kind === 'interaction.timed_out' && x.interactionId === id);
      const said = answered?.kind === 'interaction.answered' ? answered.answer : undefined;
      const approved = said && 'approved' in said ? said.approved : undefined;
      if (answered) f.answered++;
      if (expired) f.expired++;
      if (approved === false || expired) f.declinedSteps.add(`${goalId}|${step}`);
      if (answered && human?.approved !== approved) {
        (approved === false ? f.invented : f.lost).push(
          `${goalId} ${id}: recorded ${JSON.stringify(said)}, the human said ${human ? human.approved : 'nothing'}`,
        );
      } else if (expired && human) {
        f.lost.push(`${goalId} ${id}: expired although the human answered ${human.approved}`);
      } else if (expired) {
        const waited = Date.parse(expired.at) - Date.parse(req.at);
        if (waited < e.interactionTimeoutMs - 1_000)
          f.early.push(`${goalId} ${id}: expired after ${waited} ms (configured ${e.interactionTimeoutMs})`);
      } else if (!answered) {
        (human ? f.lost : f.unresolved).push(`${goalId} ${id}: neither answered nor expired`);
      }
    }
  }
  return f;
}

/** Outcomes that say no write happened (failed, cancelled, "nothing was changed") while writes of that step stand. */
function outcomeMismatches(e: ChaosEvidence, declinedSteps: Set<string>, invented: string[]): string[] {
  const out: string[] = [];
  for (const goal of e.goals) {
    for (const step of goal.steps) {
      const writes = e.writes.filter(
        (w) => w.change.origin?.goalId === goal.goalId && w.change.origin.step === step.index,
      ).length;
      const result = step.outcome.result ?? '';
      const nothing = step.outcome.status !== 'success' || /nothing was changed/i.test(result);
      if (nothing && writes > 0)
        out.push(
          `${goal.goalId} step ${step.index} ${step.plan.tool}: ${step.outcome.status} "${result}" but ${writes} writes`,
        );
      if (/declined/i.test(result) && !declinedSteps.has(`${goal.goalId}|${step.index}`))
        invented.push(
          `${goal.goalId} step ${step.index} ${step.plan.tool}: "${result}" without a human decline`,
        );
    }
  }
  return out;
}

/** Time from each orchestrator kill to each goal it interrupted starting again (`goal.started`, attempt > 1). */
export function takeoverTimes(faults: readonly Fault[], heard: readonly HeardEvent[]): number[] {
  const out: number[] = [];
  const sorted = [...faults].sort((a, b) => a.at - b.at);
  const seen = new Set<string>();
  for (const { event, heardAt } of heard) {
    if (event.kind !== 'goal.started' || event.attempt < 2) continue;
    // The latest orchestrator kill before it, unless a NATS restart came after that kill (then it is not a takeover).
    const before = sorted.filter((f) => f.at < heardAt && f.kind !== 'tool-runner');
    const last = before[before.length - 1];
    if (!last || last.kind !== 'orchestrator') continue;
    const key = `${event.goalId}@${last.at}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(heardAt - last.at);
  }
  return out.sort((a, b) => a - b);
}

/** The last events of a trace, e.g. `#12 operation.dispatched ResourceWriteTool attempt 2 @10:01:02.345`. */
function describeTail(events: readonly TraceEvent[]): string {
  return events
    .slice(-8)
    .map((e) => {
      const detail =
        e.kind === 'operation.dispatched'
          ? ` ${e.tool} ${e.invocationId} attempt ${e.attempt}`
          : e.kind === 'operation.outcome'
            ? ` ${e.tool} ${e.status}`
            : e.kind === 'goal.started'
              ? ` attempt ${e.attempt}`
              : e.kind === 'runtime'
                ? ` ${JSON.stringify(e.event).slice(0, 120)}`
                : '';
      return `#${e.seq} ${e.kind}${detail} @${e.at.slice(11, 23)}`;
    })
    .join(' | ');
}

/** Nearest-rank percentile of sorted values (NaN when empty). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

export function analyse(e: ChaosEvidence): ChaosReport {
  const statuses: Record<string, number> = {};
  for (const g of e.goals) statuses[g.status] = (statuses[g.status] ?? 0) + 1;
  const traceGaps: string[] = [];
  const finalEvents: string[] = [];
  for (const [goalId, events] of e.traces) {
    const p = traceProblems(goalId, events);
    traceGaps.push(...p.gaps);
    finalEvents.push(...p.finals);
  }
  const i = interactionFindings(e);
  const outcomes = outcomeMismatches(e, i.declinedSteps, i.invented);
  return {
    goals: e.goals.length,
    terminal: e.goals.filter((g) => TERMINAL.includes(g.status)).length,
    notTerminal: e.goals
      .filter((g) => !TERMINAL.includes(g.status))
      .map((g) => `${g.goalId} ${g.status}: ${describeTail(e.traces.get(g.goalId) ?? [])}`),
    statuses,
    writes: e.writes.length,
    doubleWrites: doubleWrites(e.writes),
    traceGaps,
    finalEvents,
    answersLost: i.lost,
    declinesInvented: i.invented,
    unresolvedInteractions: i.unresolved,
    earlyExpiries: i.early,
    outcomeMismatches: outcomes,
    interactions: { asked: i.asked, answered: i.answered, expired: i.expired },
    takeoverMs: takeoverTimes(e.faults, e.heard),
    faults: e.faults.map((f) => `${f.kind} ${f.name} @${new Date(f.at).toISOString().slice(11, 23)}`),
  };
}

/** The properties that must hold (each list empty), by name: what a test asserts and the script's exit code. */
export function violations(r: ChaosReport): Record<string, string[]> {
  const all: Record<string, string[]> = {
    'goals not terminal': r.notTerminal,
    'writes applied twice': r.doubleWrites,
    'trace gaps': r.traceGaps,
    'final events': r.finalEvents,
    'answers lost': r.answersLost,
    'declines invented': r.declinesInvented,
    'interactions neither answered nor expired': r.unresolvedInteractions,
    'expired before the configured timeout': r.earlyExpiries,
    'outcomes that contradict the repository': r.outcomeMismatches,
  };
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v.length > 0));
}

/** The printed summary: the figures first, then every violation. */
export function formatReport(r: ChaosReport): string {
  const ms = (v: number) => (Number.isNaN(v) ? 'n/a' : `${(v / 1000).toFixed(1)} s`);
  const lines = [
    `goals terminal      ${r.terminal}/${r.goals}  ${JSON.stringify(r.statuses)}`,
    `faults injected     ${r.faults.length}: ${r.faults.join(', ') || 'none'}`,
    `takeover            p50 ${ms(percentile(r.takeoverMs, 50))}  p99 ${ms(percentile(r.takeoverMs, 99))}  (${r.takeoverMs.length} resumed goals after orchestrator kills)`,
    `interactions        ${r.interactions.asked} asked, ${r.interactions.answered} answered, ${r.interactions.expired} expired`,
    `answers lost        ${r.answersLost.length}`,
    `declines invented   ${r.declinesInvented.length}`,
    `writes              ${r.writes} applied, ${r.doubleWrites.length} applied twice`,
    `traces              ${r.traceGaps.length} gaps, ${r.finalEvents.length} goals without exactly one final event`,
    `outcome mismatches  ${r.outcomeMismatches.length}`,
  ];
  for (const [name, cases] of Object.entries(violations(r)))
    lines.push(`VIOLATION ${name}:`, ...cases.slice(0, 20).map((c) => `  - ${c}`));
  return lines.join('\n');
}
