import { TERMINAL_GOAL_STATUSES } from '@novelrag/contracts';
import { DEMO_REQUEST, demoScenario, installRules } from '../system/scenario';
import { type System, startSystem } from '../system/system';
import { type ChaosReport, type GoalView, analyse } from './checks';
import { injectFaults } from './faults';
import { ChaosHuman } from './human';
import { BusObserver, storedTrace } from './observe';

export interface ChaosOptions {
  readonly goals: number;
  /** kill -9 of orchestrators and tool-runners (in turn), each restarted before the next. */
  readonly kills: number;
  readonly natsRestart: boolean;
  /** Share of model answers that are broken (not valid JSON for the schema asked). */
  readonly brokenRate: number;
  readonly answerRate: number;
  readonly approveRate: number;
  /** Every goal must be terminal within this (from its submission burst). */
  readonly goalBoundMs: number;
  /** NOVELRAG_INTERACTION_TIMEOUT_MS given to the services. */
  readonly interactionTimeoutMs: number;
  readonly maxPauseMs: number;
  /** Longest random delay of a model answer (so concurrent goals interleave and faults land mid-step). */
  readonly modelDelayMs: number;
  /** The services' own lease and ack-wait defaults instead of the short test ones (startSystem). */
  readonly serviceDefaults: boolean;
  /** Restart a killed process under its old instance id rather than a new one (see injectFaults). */
  readonly sameIds: boolean;
  readonly seed: number;
  /** Extra environment for every service (e.g. lease settings). */
  readonly env?: Record<string, string>;
  readonly log: (line: string) => void;
}

/** A small seeded generator (mulberry32): a run is repeatable from its printed seed, up to the processes' timing. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * The model: the offline demo's recorded scenario (valid four-phase loop answers and tool outputs), except that a
 * random share of the answers is broken output (text that is not the JSON the schema asks for).
 */
function installModel(system: System, options: ChaosOptions, random: () => number): void {
  system.fake.always({ where: () => random() < options.brokenRate }, { text: '{"broken": tru' });
  installRules(system.fake, demoScenario().rules, () => Math.floor(random() * options.modelDelayMs));
}

async function goalView(system: System, goalId: string): Promise<GoalView> {
  const res = await system
    .http(`/v1/goals/${goalId}`)
    .catch(() => ({ status: 0, body: {} as Record<string, unknown> }));
  return {
    goalId,
    status: res.status === 200 ? String(res.body['status']) : `http ${res.status}`,
    steps: (res.status === 200 ? res.body['steps'] : []) as GoalView['steps'],
  };
}

/** Polls until every goal is terminal or the bound passes; returns the last views. */
async function awaitTerminal(system: System, goalIds: string[], boundMs: number): Promise<GoalView[]> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const views = await Promise.all(goalIds.map((id) => goalView(system, id)));
    const open = views.filter((v) => !(TERMINAL_GOAL_STATUSES as readonly string[]).includes(v.status));
    if (open.length === 0 || Date.now() > deadline) return views;
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

async function submitGoals(system: System, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await system.http('/v1/goals', {
      method: 'POST',
      body: JSON.stringify({ request: DEMO_REQUEST, lang: 'en' }),
    });
    if (res.status !== 202) throw new Error(`submit answered ${res.status}: ${JSON.stringify(res.body)}`);
    ids.push(String(res.body['goalId']));
  }
  return ids;
}

/** For each goal not terminal: every service's log lines that name it (the last 30 per process, HTTP access lines
 * left out), to the log. */
function diagnose(system: System, goals: readonly GoalView[], log: (line: string) => void): void {
  for (const goal of goals) {
    if ((TERMINAL_GOAL_STATUSES as readonly string[]).includes(goal.status)) continue;
    for (const p of system.processes) {
      const lines = p
        .output()
        .split('\n')
        .filter((l) => l.includes(goal.goalId) && !l.includes('"http request"'));
      if (lines.length > 0) log(`${goal.goalId} in ${p.name}:\n${lines.slice(-30).join('\n')}`);
    }
  }
}

/**
 * One fault-injection run: the whole system as processes (two orchestrators, two tool-runners) on a private NATS,
 * `goals` concurrent goals, faults injected while they run, a "human" answering confirmations at random; then every
 * property is checked from what the bus and the stores hold (see checks.ts).
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const random = seededRandom(options.seed);
  const system = await startSystem('chaos', {
    runners: 2,
    serviceDefaults: options.serviceDefaults,
    env: {
      NOVELRAG_INTERACTION_TIMEOUT_MS: String(options.interactionTimeoutMs),
      // Every goal is polled once a second (awaitTerminal), besides the answers: room for twice that, so the human's
      // answers are not refused with 429 and left to expire.
      NOVELRAG_RATE_LIMIT_PER_MIN: String(Math.max(600, options.goals * 120 + 600)),
      ...options.env,
    },
  });
  try {
    installModel(system, options, random);
    const observer = new BusObserver(system.nc);
    await observer.ready();
    const human = new ChaosHuman(system.url, { ...options, maxThinkMs: 2_000, random });
    // Faults start once a goal works on a tool call (heard on the bus), so the first kill lands mid-goal.
    let working: () => void = () => undefined;
    const firstCall = new Promise<void>((resolve) => (working = resolve));
    observer.onEvent((e) => {
      human.hear(e);
      if (e.kind === 'operation.dispatched') working();
    });
    const goalIds = await submitGoals(system, options.goals);
    options.log(`submitted ${goalIds.length} goals`);
    let finished = false;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, options.goalBoundMs)));
    // The goals are taken by the first orchestrator; the second joins once they run, so the first kill (of
    // chaos-orch-1) interrupts goals for certain and the second takes them over.
    const faults = Promise.race([firstCall, bound]).then(async () => {
      await system.start('orchestrator', 'chaos-orch-2');
      return injectFaults(system, {
        ...options,
        downMs: 1_000,
        victims: [
          { app: 'orchestrator', name: 'chaos-orch-1' },
          { app: 'orchestrator', name: 'chaos-orch-2' },
          { app: 'tool-runner', name: 'chaos-runner-1' },
          { app: 'tool-runner', name: 'chaos-runner-2' },
        ],
        random,
        done: () => finished,
      });
    });
    const goals = await awaitTerminal(system, goalIds, options.goalBoundMs);
    finished = true;
    working();
    clearTimeout(timer);
    const injected = await faults;
    await human.settle();
    const traces = new Map<string, Awaited<ReturnType<typeof storedTrace>>>();
    for (const id of goalIds) traces.set(id, await storedTrace(system.nc, id));
    observer.close();
    diagnose(system, goals, options.log);
    return analyse({
      goals,
      traces,
      heard: observer.events,
      writes: observer.writes,
      answers: human.answers,
      faults: injected,
      interactionTimeoutMs: options.interactionTimeoutMs,
    });
  } finally {
    await system.stop();
  }
}
