import {
  type ActionDeterminer,
  type ChatModel,
  type Decision,
  type DetermineActionInput,
  type PromptRenderer,
  resolution,
} from '@novelrag/agenturn';
import type { ExplorationHints, PursuitAssessment, ToolWorkspace, WorkspaceState } from '@novelrag/contracts';
import { ActionDecider } from './action-decider';
import { LlmPursuitAssessor } from './assessor';
import { ContextLoop, type ContextRoundInput } from './context-loop';
import { ModelCalls, asCancelled, isModelOutputError, throwIfAborted } from './model-calls';
import { safely } from './observe';
import type { LoopObserver, ResourceReader } from './ports';
import { RefinementAnalyzer } from './refinement-analyzer';
import { ResourceContext } from './workspace';
import { inPhase } from './phase-span';

/** The original's `max_iter`: discovery rounds per step. */
export const DEFAULT_MAX_ITERATIONS = 5;

export interface ActionDetermineLoopOptions {
  readonly model: ChatModel;
  readonly renderer: PromptRenderer;
  readonly resources: ResourceReader;
  /** Content language (templates and language directive). */
  readonly lang?: string;
  readonly observer?: LoopObserver;
  /** Cap on discovery rounds per step (default 5, the original's max_iter); goal limits.maxIterations overrides. */
  readonly maxIterations?: number;
  /** Approved tool executions wait until this many rounds ran (default 0); finalizations never wait. */
  readonly minIterations?: number;
  /** The thread's workspace to start from (default `emptyWorkspace()`). */
  readonly workspace?: WorkspaceState;
  /** From the checkpoint on resume, or the previous step. */
  readonly previousAssessment?: PursuitAssessment;
  /** Recent thread history as text (used when the input carries no InteractionHistory). */
  readonly history?: string;
  /**
   * Looks for tools the model asked for (or kept expanded) that the catalog does not offer now (unknown or marked
   * unavailable): a tool may have appeared since the catalog was last refreshed. Resolves when the catalog is current;
   * never rejects. Without it such names are skipped.
   */
  readonly findTools?: (names: readonly string[]) => Promise<void>;
  /** Most independent tool calls one step may run at the same time (default 1). */
  readonly parallelToolCalls?: number;
}

/**
 * The four-phase planner (see docs/orchestration.md): assessment → [context loop → decision → refinement
 * analysis] until the verdict approves or the iteration cap is hit, then the last planned action. One instance per
 * thread workspace: the workspace and the expanded tools carry over from step to step (and goal to goal when the
 * orchestrator restores the thread's state). Model misbehaviour degrades to a clear resolution; infrastructure errors
 * reject (the executor fails the pursuit with their code); cancellation rejects with `CancelledError`.
 */
export class ActionDetermineLoop implements ActionDeterminer {
  private readonly context: ResourceContext;
  private readonly calls: ModelCalls;
  private readonly assessor: LlmPursuitAssessor;
  private readonly contextLoop: ContextLoop;
  private readonly decider: ActionDecider;
  private readonly analyzer: RefinementAnalyzer;
  private readonly maxIterations: number;
  private readonly minIterations: number;
  private assessment: PursuitAssessment | undefined;
  private decidedOn: ToolWorkspace;

  constructor(private readonly options: ActionDetermineLoopOptions) {
    this.context = new ResourceContext(options.resources, options.workspace);
    this.calls = new ModelCalls(options.model, options.renderer, options.observer, options.lang);
    this.assessor = new LlmPursuitAssessor(this.calls, options.lang, options.history ?? '');
    this.maxIterations = Math.max(1, Math.floor(options.maxIterations ?? DEFAULT_MAX_ITERATIONS));
    this.minIterations = Math.max(0, Math.floor(options.minIterations ?? 0));
    this.contextLoop = new ContextLoop(
      this.calls,
      this.context,
      options.observer,
      options.lang,
      this.maxIterations,
      options.findTools,
    );
    this.decider = new ActionDecider(
      this.calls,
      options.lang,
      undefined,
      Math.max(1, Math.floor(options.parallelToolCalls ?? 1)),
    );
    this.analyzer = new RefinementAnalyzer(this.calls, options.lang);
    this.assessment = options.previousAssessment;
    this.decidedOn = this.context.toolWorkspace();
  }

  async determineAction(input: DetermineActionInput): Promise<Decision> {
    try {
      return await this.determine(input);
    } catch (err) {
      if (input.signal?.aborted) throw asCancelled(err, input.signal);
      throw err;
    }
  }

  /** Current workspace (segments order, exclusions, nonexistent uris, search history, expanded tools), serialisable. */
  workspace(): WorkspaceState {
    return this.context.toState();
  }

  /** Last assessment produced (to checkpoint). */
  lastAssessment(): PursuitAssessment | undefined {
    return this.assessment;
  }

  /** The context the last decision was made on, as sent to tools in ToolInvocation.workspace. */
  toolWorkspace(): ToolWorkspace {
    return structuredClone(this.decidedOn);
  }

  private async determine(input: DetermineActionInput): Promise<Decision> {
    const { signal, ctx } = input;
    throwIfAborted(signal);
    const observer = this.options.observer;
    let assessment: PursuitAssessment | null = await inPhase('assessment', undefined, () =>
      this.assess(input),
    );
    if (assessment === null) {
      return resolution(
        'failed',
        'I could not assess the progress of this goal: the model did not produce a valid assessment.',
        'Invalid pursuit assessment',
      );
    }
    const round: ContextRoundInput = {
      goal: input.progress.goal,
      assessment,
      catalog: input.tools,
      beliefs: input.beliefs,
      ctx,
      ...(signal ? { signal } : {}),
    };
    let iteration = 0;
    let last: Decision = resolution(
      'abandoned',
      'I could not settle on an action within the iteration limit.',
      'Maximum iterations reached without a decision',
    );
    let hints: ExplorationHints | null = null;
    for (;;) {
      if (hints !== null) await this.explore(hints, round, iteration);
      hints = null;
      const context = await this.contextLoop.run({ ...round, assessment }, iteration);
      iteration = context.iteration;
      this.decidedOn = this.context.toolWorkspace();
      const common = {
        goal: round.goal,
        assessment,
        steps: input.progress.executedSteps,
        snapshot: context.snapshot,
        catalog: input.tools,
        expandedTools: this.context.expandedTools,
        beliefs: input.beliefs,
        ctx,
        ...(signal ? { signal } : {}),
      };
      const outcome: Awaited<ReturnType<ActionDecider['decide']>> = await inPhase('decision', iteration, () =>
        this.decider.decide(common),
      );
      if (outcome.kind === 'invalid') return outcome.planned;
      const at = iteration;
      safely(() => observer?.decision(at, outcome.decision));
      last = outcome.planned;
      const decision = outcome.decision;
      const verdict: Awaited<ReturnType<RefinementAnalyzer['analyze']>> = await inPhase(
        'refinement',
        iteration,
        () => this.analyzer.analyze({ ...common, decision }),
      );
      safely(() => observer?.verdict(at, verdict));
      if (verdict.verdict === 'approve') {
        if (last.kind === 'resolution' || iteration >= this.minIterations) return last;
        ctx.debug(`Approved, but only ${iteration} of ${this.minIterations} minimum iteration(s) ran`);
      } else {
        ctx.info(`The decision needs refinement: ${verdict.analysis}`);
        if (verdict.refinement !== null) {
          const refined = verdict.refinement;
          assessment = refined;
          this.assessment = refined;
          safely(() => observer?.assessment(refined, at));
        }
        hints = verdict.exploration_hints;
      }
      if (iteration >= this.maxIterations) break;
    }
    ctx.warning(`Reached the iteration cap (${this.maxIterations}); going with the last planned action`);
    return last;
  }

  /** Loads what a refinement verdict asked to explore into the context before the next iteration. */
  private async explore(hints: ExplorationHints, round: ContextRoundInput, iteration: number): Promise<void> {
    await this.contextLoop.load(hints.search_terms, hints.resource_paths, hints.tools_to_expand, round);
    safely(() => this.options.observer?.contextUpdated(iteration, this.context.stats()));
  }

  /** The step's assessment; on invalid output the previous one stands, and null when there is none. */
  private async assess(input: DetermineActionInput): Promise<PursuitAssessment | null> {
    try {
      const assessment = await this.assessor.assessProgress(input.progress, {
        beliefs: input.beliefs,
        previousAssessment: this.assessment ?? null,
        ...(input.history ? { history: input.history } : {}),
        ...(input.signal ? { signal: input.signal } : {}),
      });
      this.assessment = assessment;
      safely(() => this.options.observer?.assessment(assessment));
      return assessment;
    } catch (err) {
      if (!isModelOutputError(err)) throw err;
      if (this.assessment === undefined) return null;
      input.ctx.warning('The progress assessment was invalid; keeping the previous assessment');
      return this.assessment;
    }
  }
}
