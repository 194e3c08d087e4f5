// Pursuit dependencies for int tests that run a pursuit in process on real NATS stores: tools in process, no
// resource-service, the given agent kinds and model.
import type { NatsConnection } from '@nats-io/transport-node';
import { InProcessToolExecutor, type ToolCatalog } from '@novelrag/agenturn';
import { type GoalStore, KvThreadLeases, type ThreadStore, TracePublisher } from '@novelrag/bus';
import { RunningGoals } from '../bus/running-goals';
import type { PursuitDeps } from '../pursuit/types';
import { silentLog, testSettings } from './pursuit-fixtures';

export interface InProcessDepsOptions {
  readonly nc: NatsConnection;
  readonly store: GoalStore;
  readonly threads: ThreadStore;
  readonly catalog: ToolCatalog;
  readonly agents: PursuitDeps['agents'];
  readonly model?: PursuitDeps['model'];
  readonly renderer?: PursuitDeps['renderer'];
  readonly settings?: Partial<PursuitDeps['settings']>;
}

export async function inProcessDeps(options: InProcessDepsOptions): Promise<PursuitDeps> {
  const { nc, catalog } = options;
  return {
    store: options.store,
    threads: options.threads,
    leases: await KvThreadLeases.open(nc, { leaseMs: 2_000, pollMs: 50 }),
    tools: { live: () => catalog, discoverFor: () => Promise.resolve() },
    executors: () => {
      const inProcess = new InProcessToolExecutor(catalog);
      return {
        execute: (plan, ctx, signal) => inProcess.execute(plan, ctx, signal),
        running: () => undefined,
      };
    },
    agents: options.agents,
    publisher: new TracePublisher(nc),
    model: options.model ?? ({} as PursuitDeps['model']),
    renderer: options.renderer ?? ({} as PursuitDeps['renderer']),
    resources: {} as PursuitDeps['resources'],
    running: new RunningGoals(),
    backlog: { add: () => undefined },
    settings: { ...testSettings, ...options.settings },
    log: silentLog,
  };
}
