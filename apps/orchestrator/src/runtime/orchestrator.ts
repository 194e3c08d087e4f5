import type { NatsConnection } from '@nats-io/transport-node';
import type { ChatModel } from '@novelrag/agenturn';
import {
  type ContextLogger,
  type GoalStore,
  KvGoalStore,
  KvThreadLeases,
  KvThreadStore,
  type ThreadLeases,
  type ThreadStore,
  TracePublisher,
  type ServiceContext,
  ensureGoalsStream,
  ensureTraceStream,
} from '@novelrag/bus';
import { NunjucksPromptRenderer, createChatModelFromEnv, findTemplatesRoot } from '@novelrag/llm';
import { type RagAgentDeps, defaultAgents, natsAnswerDeltas } from '../agents';
import { GoalBusHandlers } from '../bus/goal-bus-handlers';
import { GoalConsumer } from '../bus/goal-consumer';
import { RunningGoals } from '../bus/running-goals';
import type { OrchestratorEnv } from '../config';
import { NextGoalService } from '../deciders/next-goal.service';
import { type PursuitDeps, type PursuitSettings, ResourceBacklog, giveUpGoal, pursueGoal } from '../pursuit';
import { remoteToolExecutors } from '../tools/executor-factory';
import { NatsMemory, NatsResourceService } from '@novelrag/resource-client';
import { ToolRegistry } from '../tools/tool-registry';

export function settingsOf(env: OrchestratorEnv): PursuitSettings {
  return {
    maxSteps: env.NOVELRAG_MAX_STEPS,
    maxIterations: env.NOVELRAG_MAX_ITERATIONS,
    minIterations: env.NOVELRAG_MIN_ITERATIONS,
    wallClockMs: env.NOVELRAG_WALL_CLOCK_MS,
    tokenBudget: env.NOVELRAG_TOKEN_BUDGET,
    interactionTimeoutMs: env.NOVELRAG_INTERACTION_TIMEOUT_MS,
    threadWaitMs: env.NOVELRAG_THREAD_WAIT_MS,
    toolTimeoutMs: env.NOVELRAG_TOOL_TIMEOUT_MS,
    maxAttempts: env.NOVELRAG_GOAL_MAX_ATTEMPTS,
    defaultLang: env.NOVELRAG_DEFAULT_LANG,
    cancelPollMs: Math.max(500, Math.floor(env.NOVELRAG_GOAL_ACK_WAIT_MS / 3)),
    toolClaimGraceMs: env.NOVELRAG_TOOL_CLAIM_GRACE_MS,
  };
}

/**
 * Everything one orchestrator instance runs: the GOALS consumer and its pursuits, the per-goal bus handlers (cancel,
 * runtime events, interactions), the tool registry, and the autonomous next-goal service. Built from the validated
 * environment; `start`/`stop` are driven by the Nest lifecycle.
 */
export class Orchestrator {
  readonly nextGoal: NextGoalService;
  private readonly running = new RunningGoals();
  private consumer: GoalConsumer | undefined;
  private handlers: GoalBusHandlers | undefined;

  private constructor(
    private readonly env: ServiceContext<OrchestratorEnv>['env'],
    private readonly nc: NatsConnection,
    private readonly log: ContextLogger,
    private readonly model: ChatModel | null,
    private readonly store: GoalStore,
    private readonly threads: ThreadStore,
    private readonly leases: ThreadLeases,
    private readonly tools: ToolRegistry,
    private readonly renderer: NunjucksPromptRenderer,
  ) {
    this.nextGoal = new NextGoalService({
      nc,
      store,
      threads,
      model,
      renderer,
      resources: this.resources(),
      defaultLang: env.NOVELRAG_DEFAULT_LANG,
      timeoutMs: env.NOVELRAG_LLM_TIMEOUT_MS * 3,
    });
  }

  static async create(ctx: ServiceContext<OrchestratorEnv>): Promise<Orchestrator> {
    const { env, connection: nc } = ctx;
    const log = ctx.logger.child('Orchestrator');
    const model = createChatModelFromEnv(env);
    const renderer = new NunjucksPromptRenderer({
      root: findTemplatesRoot({ NOVELRAG_TEMPLATES_DIR: env.NOVELRAG_TEMPLATES_DIR }),
    });
    await ensureGoalsStream(nc, {}, { ackWaitMs: env.NOVELRAG_GOAL_ACK_WAIT_MS });
    await ensureTraceStream(nc);
    const orchestrator = new Orchestrator(
      env,
      nc,
      log,
      model,
      await KvGoalStore.open(nc),
      await KvThreadStore.open(nc),
      await KvThreadLeases.open(nc, { leaseMs: env.NOVELRAG_THREAD_LEASE_MS }),
      new ToolRegistry(nc, {
        refreshMs: env.NOVELRAG_TOOL_REFRESH_MS,
        ...(env.NOVELRAG_TOOL_OWNERS ? { owners: env.NOVELRAG_TOOL_OWNERS } : {}),
        log: ctx.logger.child('ToolRegistry'),
      }),
      renderer,
    );
    ctx.health.register('goals', () =>
      Promise.resolve({
        ok: true,
        detail: model
          ? `consuming, ${orchestrator.running.size} goal(s) in progress`
          : 'idle: no LLM provider configured (OPENAI_API_KEY / OPENAI_BASE_URL), goals stay queued',
      }),
    );
    return orchestrator;
  }

  /** What the `rag` kind is built with: the thread memory kept by the resource-service, deltas over the bus. */
  private ragDeps(): RagAgentDeps {
    return {
      maxToolCalls: this.env.NOVELRAG_RAG_MAX_TOOL_CALLS,
      citationPolicy: this.env.NOVELRAG_RAG_CITATION_POLICY,
      memory: this.memory(),
      deltas: natsAnswerDeltas(this.nc),
    };
  }

  /** The agent kinds' thread memory, kept by the resource-service (summary, episodic and semantic memories). */
  private memory() {
    return new NatsMemory(this.nc, { timeoutMs: this.env.NOVELRAG_RESOURCE_TIMEOUT_MS });
  }

  private resources() {
    return new NatsResourceService(this.nc, { timeoutMs: this.env.NOVELRAG_RESOURCE_TIMEOUT_MS });
  }

  async start(): Promise<void> {
    const model = this.model;
    this.handlers = new GoalBusHandlers(this.nc, this.running, this.store, this.log);
    this.handlers.start();
    if (!model) {
      this.log.warn('no LLM provider configured: this instance does not pursue goals');
      return;
    }
    await this.tools.start();
    const settings = settingsOf(this.env);
    const deps: PursuitDeps = {
      store: this.store,
      threads: this.threads,
      leases: this.leases,
      tools: this.tools,
      executors: remoteToolExecutors(this.nc, this.tools, settings, this.log),
      agents: defaultAgents(
        { parallelToolCalls: this.env.NOVELRAG_PARALLEL_TOOL_CALLS },
        {
          assistant: {
            maxRounds: this.env.NOVELRAG_ASSISTANT_MAX_ROUNDS,
            maxParallelTools: this.env.NOVELRAG_PARALLEL_TOOL_CALLS,
            memory: this.memory(),
            deltas: natsAnswerDeltas(this.nc),
          },
          rag: this.ragDeps(),
        },
      ),
      // Its events are built here from typed data; their readers validate them. The final events are checked before
      // they go out (`TracePublisherOptions.validate`): one a reader would skip leaves a follower waiting.
      publisher: new TracePublisher(this.nc, { validate: 'final' }),
      model,
      renderer: this.renderer,
      resources: this.resources(),
      running: this.running,
      backlog: new ResourceBacklog(this.resources(), this.log),
      settings,
      log: this.log,
    };
    this.consumer = new GoalConsumer(
      this.nc,
      async (submission, delivery, suspend) => {
        await this.tools.ensureDiscovered();
        return pursueGoal(submission, delivery, deps, suspend);
      },
      {
        concurrency: this.env.NOVELRAG_GOAL_CONCURRENCY,
        ackWaitMs: this.env.NOVELRAG_GOAL_ACK_WAIT_MS,
        maxFailedDeliveries: this.env.NOVELRAG_GOAL_MAX_ATTEMPTS,
        giveUp: (submission, error) => giveUpGoal(submission.goalId, error, deps),
        log: this.log,
      },
    );
    await this.consumer.start();
    this.log.info('pursuing goals', { concurrency: this.env.NOVELRAG_GOAL_CONCURRENCY });
  }

  /**
   * Stops pulling and hands the goals in flight back at once: each stops at its next safe point, releases its thread
   * lease and its message is naked without delay, so another instance resumes it from its checkpoint right away (a tool
   * call in flight is re-sent there with the same invocation id and replayed). Waiting for them to finish here would
   * only delay them: a goal may wait minutes for a human. The process's grace period bounds the hand-back.
   */
  async stop(): Promise<void> {
    await this.consumer?.stop(0);
    this.handlers?.stop();
    this.tools.stop();
  }
}
