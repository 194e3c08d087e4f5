// Fixtures of the `rag` agent's tests: a tiny world as retrieval documents, in-process stand-ins of the retrieval tools
// that answer from it (same result shapes and doc ids as the tool-runner's), and a pursuit runner over real NATS.
import { createHash } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  type ChatModel,
  type MemoryPort,
  ToolCatalog,
  type UnverifiedCitationPolicy,
} from '@novelrag/agenturn';
import { type FakeTool, fakeTool } from '@novelrag/agenturn/testing';
import {
  type GoalStore,
  KvThreadLeases,
  type ThreadStore,
  TracePublisher,
  newGoalRecord,
} from '@novelrag/bus';
import { type AnswerDelta, type GoalRecord, GoalSubmission, SCHEMA_VERSION } from '@novelrag/contracts';
import { NunjucksPromptRenderer, findTemplatesRoot } from '@novelrag/llm';
import { uniqueName } from '@novelrag/testkit';
import { AgentRegistry, RagAgent } from '../agents';
import { RunningGoals } from '../bus/running-goals';
import { pursueGoal } from '../pursuit/pickup';
import type { PursuitDeps } from '../pursuit/types';
import { inProcessExecutors, silentLog, testSettings } from './pursuit-fixtures';

export interface Doc {
  readonly doc_id: string;
  readonly uri: string;
  readonly text: string;
}

const docOf = (uri: string, text: string): Doc => ({
  doc_id: `doc_${createHash('sha256').update(uri).digest('hex').slice(0, 10)}`,
  uri,
  text,
});

export const YU_GUI = docOf(
  '/character/yu_gui',
  'name: 余归\ndescription: 青云宗的剑客，性格沉默而固执。\nrelation to /faction/azure_sect: member',
);
export const AZURE_SECT = docOf(
  '/faction/azure_sect',
  'name: Azure Sect\ndescription: A sect of swordsmen with its seat in the northern mountains.',
);
export const SHEN_HE = docOf(
  '/character/shen_he',
  'name: Shen He\ndescription: A merchant of the southern markets.',
);
const WORLD = [YU_GUI, AZURE_SECT, SHEN_HE];

/** The retrieval tools, answering from the fixture world (grade keeps documents naming 余归 or the sect). */
export function retrievalTools() {
  const vector_retrieve = fakeTool({
    name: 'vector_retrieve',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string' }, top_k: { type: 'integer' } },
      required: ['query'],
    },
    result: (params) => {
      const words = String(params['query']).toLowerCase().split(/\s+/);
      const documents = WORLD.filter((d) => words.some((w) => w && d.text.toLowerCase().includes(w)));
      return JSON.stringify({ documents: documents.map((d) => ({ ...d, score: 1 })) });
    },
  });
  const grade = fakeTool({
    name: 'grade',
    result: (params) => {
      const docs = params['documents'] as Doc[];
      const keep = (d: Doc) => d.text.includes('余归') || d.text.includes('Azure Sect');
      return JSON.stringify({
        documents: docs.filter(keep),
        dropped: docs
          .filter((d) => !keep(d))
          .map((d) => ({ doc_id: d.doc_id, uri: d.uri, reason: 'off topic' })),
      });
    },
  });
  const rerank = fakeTool({
    name: 'rerank',
    result: (params) => JSON.stringify({ documents: [...(params['documents'] as Doc[])].reverse() }),
  });
  const query_rewrite = fakeTool({
    name: 'query_rewrite',
    result: () => JSON.stringify({ query: '余归', reason: 'name the person' }),
  });
  return { vector_retrieve, grade, rerank, query_rewrite };
}
export type RetrievalTools = ReturnType<typeof retrievalTools>;

/** A tool call of the scripted model. */
export const toolCall = (name: string, args: Record<string, unknown> = {}) => ({
  content: `calling ${name}`,
  toolCalls: [{ id: uniqueName('call'), name, arguments: args }],
});
/** The model's reply when it has gathered enough. */
export const READY = { content: 'READY', toolCalls: [] };

export interface RagWorld {
  readonly nc: NatsConnection;
  readonly store: GoalStore;
  readonly threads: ThreadStore;
}

export interface AskOptions {
  readonly question: string;
  readonly model: ChatModel;
  readonly tools: Partial<RetrievalTools>;
  readonly threadId?: string;
  readonly memory?: MemoryPort | null;
  readonly policy?: UnverifiedCitationPolicy;
  readonly maxToolCalls?: number;
  readonly deltas?: AnswerDelta[];
  /** Hands the goal back (instance shutdown) when it aborts. */
  readonly suspend?: AbortSignal;
  /** An existing goal to pursue again (resumption); default: a new one. */
  readonly goalId?: string;
  readonly attempt?: number;
}

/** Pursues one `rag` goal in process (real NATS KV, trace and leases) and returns its record and the delivery fate. */
export async function ask(world: RagWorld, options: AskOptions) {
  const catalog = new ToolCatalog(Object.values(options.tools) as FakeTool[]);
  const deltas = options.deltas ?? [];
  const deps: PursuitDeps = {
    store: world.store,
    threads: world.threads,
    leases: await KvThreadLeases.open(world.nc, { leaseMs: 5_000, pollMs: 50 }),
    tools: { live: () => catalog, discoverFor: () => Promise.resolve() },
    executors: inProcessExecutors(catalog),
    agents: new AgentRegistry().register(
      'rag',
      new RagAgent({
        maxToolCalls: options.maxToolCalls ?? 8,
        citationPolicy: options.policy ?? 'strip',
        memory: options.memory ?? null,
        deltas: { publish: (d) => deltas.push(d) },
      }),
    ),
    publisher: new TracePublisher(world.nc),
    model: options.model,
    renderer: new NunjucksPromptRenderer({ root: findTemplatesRoot() }),
    resources: {} as PursuitDeps['resources'],
    running: new RunningGoals(),
    backlog: { add: () => undefined },
    settings: testSettings,
    log: silentLog,
  };
  const submission = GoalSubmission.parse({
    schemaVersion: SCHEMA_VERSION,
    goalId: options.goalId ?? uniqueName('g-rag').replace(/[^A-Za-z0-9_-]/g, '_'),
    ...(options.threadId ? { threadId: options.threadId } : {}),
    request: options.question,
    beliefs: [],
    submittedAt: new Date().toISOString(),
    source: 'user',
    agent: 'rag',
  });
  if (!options.goalId) await world.store.create(newGoalRecord(submission));
  const attempt = options.attempt ?? 1;
  const delivery = { attempt, seq: attempt, keepAlive: () => undefined };
  const fate = await pursueGoal(submission, delivery, deps, options.suspend ?? new AbortController().signal);
  const record = (await world.store.get(submission.goalId)) as GoalRecord;
  return { fate, record, deltas };
}
