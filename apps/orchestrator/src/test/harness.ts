import { newGoalRecord } from '@novelrag/bus';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import {
  type GoalStore,
  KvGoalStore,
  busRequest,
  ensureGoalsStream,
  ensureTraceStream,
  submitGoal,
} from '@novelrag/bus';
import {
  AspectCreateReply,
  Buckets,
  type GoalLimits,
  type GoalRecord,
  GoalSubmission,
  SCHEMA_VERSION,
  Subjects,
  TraceEvent,
  type TraceKind,
  isTerminalStatus,
} from '@novelrag/contracts';
import {
  FakeOpenAIServer,
  type FakeToolCall,
  type NatsServerHandle,
  REPO_ROOT as ROOT,
  type ServiceProcess,
  startNats,
  startServiceProcess,
  uniqueName,
} from '@novelrag/testkit';
import { TestTools } from './test-tools';

/** Compiles what the suites run as processes (only these projects, so others' work in progress cannot break it). */
export function buildForProcesses(extra: readonly string[] = []): void {
  const projects = ['resource-service', 'orchestrator', ...extra].map((p) => `apps/${p}/tsconfig.app.json`);
  const r = spawnSync(path.join(ROOT, 'node_modules/.bin/tsc'), ['-b', ...projects], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`build failed:\n${r.stdout}\n${r.stderr}`);
}

/** The trace as a dashboard sees it (core subscription to `novelrag.trace.>`), parsed with the contract. */
export class TraceLog {
  readonly events: TraceEvent[] = [];
  private readonly waiters: { match: (e: TraceEvent) => boolean; resolve: (e: TraceEvent) => void }[] = [];
  private readonly sub: Subscription;

  constructor(nc: NatsConnection) {
    this.sub = nc.subscribe(Subjects.traceAll, {
      callback: (_err, msg) => {
        const event = TraceEvent.parse(msg.json());
        this.events.push(event);
        for (const w of [...this.waiters]) {
          if (!w.match(event)) continue;
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve(event);
        }
      },
    });
  }

  of(goalId: string): TraceEvent[] {
    return this.events.filter((e) => e.goalId === goalId);
  }

  kinds(goalId: string): TraceKind[] {
    return this.of(goalId).map((e) => e.kind);
  }

  /** The first event of `kind` for the goal (already seen or the next one). */
  waitFor(goalId: string, kind: TraceKind): Promise<TraceEvent> {
    const match = (e: TraceEvent) => e.goalId === goalId && e.kind === kind;
    const seen = this.events.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }

  stop(): void {
    this.sub.unsubscribe();
  }
}

const ASSESSMENT = {
  finished_tasks: [],
  remaining_work_summary: 'do what the goal says',
  required_context: 'none',
  expected_actions: 'call the tool',
  boundary_conditions: [],
  exception_conditions: [],
  success_criteria: ['the goal is done'],
};

const bodyText = (body: unknown) => JSON.stringify(body ?? '');

/**
 * The model behind the fake OpenAI server: assessment, discovery (expands every tool, searches nothing), relevance and
 * an approving verdict always answer the same; the decisions are scripted per goal (`decide`), matched by a marker in
 * the goal text, in order; the translation echoes the marker.
 */
export function scriptModel(fake: FakeOpenAIServer): void {
  fake.always({ schemaName: 'PursuitAssessment' }, { json: ASSESSMENT });
  fake.always(
    { schemaName: 'DiscoveryPlan' },
    {
      json: {
        discovery_analysis: 'the tools are needed',
        search_queries: [],
        query_resources: [],
        expand_tools: ['create_character', 'slow', 'ask', 'AspectCreateTool'],
      },
    },
  );
  fake.always(
    { schemaName: 'RefinementPlan' },
    {
      json: {
        relevance_analysis: 'all relevant',
        exclude_resources: [],
        exclude_properties: [],
        collapse_tools: [],
        sorted_segments: [],
      },
    },
  );
  fake.always(
    { schemaName: 'RefinementDecision' },
    {
      json: {
        analysis: 'fine',
        verdict: 'approve',
        approval: { ready: true, confidence: 'high', notes: '' },
        refinement: null,
        exploration_hints: null,
      },
    },
  );
  fake.always({ schemaName: 'GoalTranslation' }, (req) => {
    const marker = /\[[A-Za-z0-9-]+\]/.exec(bodyText(req.body))?.[0] ?? '[none]';
    return { json: { goal: `Goal ${marker}: do as asked` } };
  });
}

export const finalize = (response = 'done'): FakeToolCall => ({
  name: 'Finalize',
  arguments: { status: 'success', response, evidence: [], gaps: [] },
});
export const call = (name: string, args: Record<string, unknown> = {}): FakeToolCall => ({
  name,
  arguments: args,
});

/** Scripts the decisions of the goal whose text contains `marker`, one per step, in order. */
export function decide(fake: FakeOpenAIServer, marker: string, calls: readonly FakeToolCall[]): void {
  for (const c of calls) {
    fake.once(
      { kind: 'tools', where: (r) => bodyText(r.body).includes(marker) },
      { toolCalls: [c], content: 'deciding' },
    );
  }
}

export interface Harness {
  readonly nats: NatsServerHandle;
  readonly nc: NatsConnection;
  readonly fake: FakeOpenAIServer;
  readonly tools: TestTools;
  readonly store: GoalStore;
  readonly trace: TraceLog;
  readonly resources: ServiceProcess;
  /** Environment for an orchestrator (in process or as a process) against this harness. */
  orchestratorEnv(extra?: Record<string, string>): Record<string, string>;
  submit(input: { goal?: string; request?: string; threadId?: string; limits?: GoalLimits }): Promise<string>;
  /** Resolves with the record once `done` holds (terminal by default), watching the KV key. */
  waitForGoal(goalId: string, done?: (r: GoalRecord) => boolean): Promise<GoalRecord>;
  stop(): Promise<void>;
}

export async function startHarness(label: string): Promise<Harness> {
  const nats = await startNats({ privateServer: true });
  const nc = await connect({ servers: nats.url });
  await ensureGoalsStream(nc);
  await ensureTraceStream(nc);
  const dataDir = await mkdtemp(path.join(tmpdir(), 'novelrag-orch-'));
  const resources = await startServiceProcess('resource-service', uniqueName(`${label}-res`), {
    NATS_URL: nats.url,
    NOVELRAG_DATA_DIR: dataDir,
  });
  await busRequest(
    nc,
    Subjects.resources.aspectsCreate,
    { name: 'character', childrenKeys: [], metadata: {} },
    AspectCreateReply,
    { timeoutMs: 10_000 },
  );
  const fake = await FakeOpenAIServer.start();
  scriptModel(fake);
  const tools = new TestTools(nc);
  await tools.start(label.replace(/[^A-Za-z0-9_-]/g, '_'));
  const store = await KvGoalStore.open(nc);
  const trace = new TraceLog(nc);
  const kv = await new Kvm(nc).open(Buckets.goals);
  let counter = 0;

  return {
    nats,
    nc,
    fake,
    tools,
    store,
    trace,
    resources,
    orchestratorEnv: (extra = {}) => ({
      NATS_URL: nats.url,
      OPENAI_BASE_URL: fake.baseURL,
      OPENAI_API_KEY: 'test-key',
      NOVELRAG_LOG_LEVEL: 'error',
      NOVELRAG_GOAL_ACK_WAIT_MS: '3000',
      NOVELRAG_THREAD_LEASE_MS: '2000',
      NOVELRAG_TOOL_REFRESH_MS: '1000',
      NOVELRAG_SHUTDOWN_GRACE_MS: '3000',
      ...extra,
    }),
    submit: async (input) => {
      counter += 1;
      const submission = GoalSubmission.parse({
        schemaVersion: SCHEMA_VERSION,
        goalId: `g-${label}-${counter}-${Date.now().toString(36)}`.slice(0, 128),
        ...(input.threadId ? { threadId: input.threadId } : {}),
        ...(input.request !== undefined ? { request: input.request } : { goal: input.goal }),
        beliefs: [],
        ...(input.limits ? { limits: input.limits } : {}),
        submittedAt: new Date().toISOString(),
        source: 'user',
      });
      await store.create(newGoalRecord(submission));
      await submitGoal(nc, submission);
      return submission.goalId;
    },
    waitForGoal: async (goalId, done = (r) => isTerminalStatus(r.status)) => {
      const watch = await kv.watch({ key: goalId });
      try {
        for await (const entry of watch) {
          if (entry.operation !== 'PUT') continue;
          const record = await store.get(goalId);
          if (record && done(record)) return record;
        }
      } finally {
        watch.stop();
      }
      throw new Error(`watch of ${goalId} ended`);
    },
    stop: async () => {
      trace.stop();
      await tools.stop();
      await fake.close();
      await resources.stop();
      await nc.close();
      await nats.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
