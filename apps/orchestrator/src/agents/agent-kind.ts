// The agent-kind seam: what runs a goal's pursuit once the durability code (pickup, leases, checkpoints,
// interactions, finish) has set it up. Every kind is registered in an AgentRegistry under the name a goal gives in its
// `agent` field; the durability code never names a kind.
import {
  type ActionDeterminer,
  type ChatModel,
  type ExecutionContext,
  type Goal,
  GoalExecutor,
  type GoalExecutorHooks,
  type InteractionHistory,
  type OperationOutcome,
  type OperationPlan,
  type PromptRenderer,
  type PursuitOutcome,
  type ToolCatalog,
  type ToolExecutor,
} from '@novelrag/agenturn';
import type { GoalOutcome, GoalRecord, ToolWorkspace, WorkspaceState } from '@novelrag/contracts';
import type { LoopObserver, ResourceReader } from '../loop';
import type { GoalTraceDraft } from '../pursuit/trace';
import { type StepSpans, spannedDeterminer, spannedExecutor } from './step-spans';

/** What a kind resumes from: everything the checkpoint holds of earlier pursuits of the goal. */
export interface AgentResume {
  /** The steps executed and checkpointed so far (numbering and step budget go on from here). */
  readonly executedSteps: readonly OperationOutcome[];
  /** A step decided and dispatched but not recorded (a crash in between): re-sent first, under the same invocation id. */
  readonly replay?: OperationPlan;
  /** The goal record as picked up (the kind's own checkpoint data, e.g. `assessment`, lives there). */
  readonly record: GoalRecord;
}

/**
 * Checkpoints for a kind that runs its own state machine instead of a GoalExecutor (which calls `hooks` itself). A
 * rejection means the pursuit must not go on (as for `hooks`).
 */
export interface AgentCheckpoints {
  /** Writes the kind's checkpoint data (`AgentRun.checkpointData`) and the token usage now. */
  save(): Promise<void>;
  /**
   * Records steps executed together (e.g. parallel tool calls), numbered after `executed`, in one write with the kind's
   * checkpoint data: a crash leaves either none or all of them recorded, so step numbers (and invocation ids) stay
   * consistent with the kind's own state.
   */
  steps(executed: readonly OperationOutcome[], group: readonly OperationOutcome[]): Promise<void>;
}

/** Bounds of one pursuit. */
export interface AgentLimits {
  readonly maxSteps: number;
  readonly wallClockMs: number;
  /** Epoch ms when the goal was first picked up (a resumed pursuit keeps its wall-clock budget). */
  readonly startedAt: number;
  readonly maxIterations: number;
  readonly minIterations: number;
}

/** Everything a kind gets for one pursuit of one goal. */
export interface AgentContext {
  readonly goal: Goal;
  readonly resume: AgentResume;
  readonly beliefs: readonly string[];
  readonly lang: string;
  readonly history: InteractionHistory;
  /** The thread's recent goals, formatted for prompts. */
  readonly historyText: string;
  /** The thread's workspace as the previous goal left it. */
  readonly workspace: WorkspaceState;
  readonly tools: ToolCatalog;
  /**
   * Refreshes `tools` when the kind meets tool names it does not offer now (unknown or unavailable: a tool may have
   * appeared since the last discovery). Resolves when done; never rejects.
   */
  readonly findTools: (names: readonly string[]) => Promise<void>;
  /** Runs the kind's tool calls (remote in the orchestrator). */
  readonly executor: ToolExecutor;
  /** The goal's runtime: trace, human interactions, backlog. */
  readonly execution: ExecutionContext;
  /** The trace sink of the kind's own decisions (LLM calls are summed into the goal's token usage). */
  readonly trace: LoopObserver;
  /** Adds a trace event of the kind's own (e.g. `rag.answer`) to the goal's trace; never throws, never blocks. */
  readonly emit: (draft: GoalTraceDraft) => void;
  readonly model: ChatModel;
  readonly renderer: PromptRenderer;
  readonly resources: ResourceReader;
  readonly limits: AgentLimits;
  /** Aborted (with a StopReason) when the pursuit must stop. */
  readonly signal: AbortSignal;
  /**
   * The durability code's checkpoints: called on every decision and after every step (a GoalExecutor does so when
   * given them). A rejection means the pursuit must not go on.
   */
  readonly hooks: GoalExecutorHooks;
  /** Checkpoints for kinds that do not pursue through a GoalExecutor. */
  readonly checkpoints: AgentCheckpoints;
  /** The goal's OpenTelemetry step spans (a kind's decisions and tool calls run inside them). */
  readonly spans?: StepSpans;
}

/** One pursuit of one goal by a kind, started by `AgentKindDefinition.start`. */
export interface AgentRun {
  /** Pursues the goal to an outcome. Never rejects (every ending is an outcome). */
  pursue(): Promise<PursuitOutcome>;
  /** The kind's checkpoint data, stored with every checkpoint and handed back through `resume.record`. */
  checkpointData(): Partial<Pick<GoalRecord, 'assessment' | 'agentState'>>;
  /** The thread workspace to keep (after each step and at the end); undefined keeps the thread's as it is. */
  workspace(): WorkspaceState | undefined;
  /** What the kind's context shows of the workspace, sent with each tool call so content tools read the same. */
  toolWorkspace(): ToolWorkspace | undefined;
  /** What the kind adds to the goal's outcome (e.g. an answer's citations); absent: nothing. */
  outcomeExtras?(): Partial<Pick<GoalOutcome, 'citations' | 'limited'>>;
}

/** A kind of agent (GoalPursuer): starts pursuits. */
export interface AgentKindDefinition {
  /**
   * True for a kind that pursues the user's request as written (e.g. a question to answer): it is not translated into a
   * goal statement first. Absent: the request is translated.
   */
  readonly takesRequestAsGoal?: boolean;
  start(ctx: AgentContext): AgentRun;
}

/** The kinds this orchestrator can run, by name. */
export class AgentRegistry {
  private readonly kinds = new Map<string, AgentKindDefinition>();

  register(name: string, kind: AgentKindDefinition): this {
    this.kinds.set(name, kind);
    return this;
  }

  get(name: string): AgentKindDefinition | undefined {
    return this.kinds.get(name);
  }

  get names(): string[] {
    return [...this.kinds.keys()];
  }
}

/** Plays the checkpointed in-flight step first (same plan, same invocation id), then asks the kind's determiner. */
export class ResumingDeterminer implements ActionDeterminer {
  constructor(
    private pending: OperationPlan | undefined,
    private readonly inner: ActionDeterminer,
  ) {}

  determineAction(
    input: Parameters<ActionDeterminer['determineAction']>[0],
  ): ReturnType<ActionDeterminer['determineAction']> {
    const pending = this.pending;
    this.pending = undefined;
    return pending ? Promise.resolve(pending) : this.inner.determineAction(input);
  }
}

/**
 * The usual way a kind pursues: a GoalExecutor over the kind's determiner, resumed from the checkpoint (the in-flight
 * step replayed first), with the durability hooks, the context's tools, executor, runtime, limits and stop signal.
 */
export function executeWith(ctx: AgentContext, determiner: ActionDeterminer): Promise<PursuitOutcome> {
  const { goal, resume, limits } = ctx;
  const resuming = new ResumingDeterminer(resume.replay, determiner);
  const executor = new GoalExecutor({
    beliefs: ctx.beliefs,
    tools: ctx.tools,
    determiner: ctx.spans ? spannedDeterminer(resuming, ctx.spans) : resuming,
    executor: ctx.spans ? spannedExecutor(ctx.executor, ctx.spans) : ctx.executor,
    ctx: ctx.execution,
    limits: { maxSteps: limits.maxSteps, wallClockMs: limits.wallClockMs },
    hooks: ctx.hooks,
  });
  return executor.handleGoal(goal, {
    signal: ctx.signal,
    history: ctx.history,
    resume: { goal, executedSteps: [...resume.executedSteps] },
    startedAt: limits.startedAt,
  });
}
