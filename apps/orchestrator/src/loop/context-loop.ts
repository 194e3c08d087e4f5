import type { ExecutionContext, Goal, ToolCatalog } from '@novelrag/agenturn';
import {
  DiscoveryPlan,
  type PursuitAssessment,
  RefinementPlan,
  discoveryNeedsRefinement,
} from '@novelrag/contracts';
import { contentDirective } from '@novelrag/llm';
import { type ModelCalls, cancellable, isModelOutputError, throwIfAborted } from './model-calls';
import type { LoopObserver } from './ports';
import { safely } from './observe';
import type { ContextSnapshot, ResourceContext } from './workspace';
import { segmentViews, toolViews } from './views';
import { inPhase } from './phase-span';

/** How many past searches discovery sees (as the original). */
const SEARCH_HISTORY_SHOWN = 10;

export interface ContextRoundInput {
  readonly goal: Goal;
  readonly assessment: PursuitAssessment;
  readonly catalog: ToolCatalog;
  readonly beliefs: readonly string[];
  readonly ctx: ExecutionContext;
  readonly signal?: AbortSignal;
}

/**
 * The context loop: discovery plan → apply (searches, loads, tool expansion) → when something new was asked, the
 * relevance plan → apply (hide resources and properties, collapse tools, reorder) → again, until discovery asks for
 * nothing new or the iteration cap is hit. `iteration` counts discovery rounds across the whole step (the original's
 * `iter`), so the same cap bounds the context loop and the decision loop.
 */
export class ContextLoop {
  /** The current iteration's last snapshot, with the workspace it showed (`ResourceContext.snapshotKey`). */
  private last: { readonly key: string; readonly snapshot: ContextSnapshot } | undefined;

  constructor(
    private readonly calls: ModelCalls,
    private readonly context: ResourceContext,
    private readonly observer: LoopObserver | undefined,
    private readonly lang: string | undefined,
    private readonly maxIterations: number,
    private readonly findTools?: (names: readonly string[]) => Promise<void>,
  ) {}

  async run(
    input: ContextRoundInput,
    startIteration: number,
  ): Promise<{ iteration: number; snapshot: ContextSnapshot }> {
    let iteration = startIteration;
    for (;;) {
      iteration += 1;
      const before = await this.snapshot(input.signal, false);
      const plan = await inPhase('discovery', iteration, () => this.discover(input, before));
      if (plan === null) break;
      safely(() => this.observer?.discoveryPlan(iteration, plan));
      await this.applyDiscovery(plan, input);
      safely(() => this.observer?.contextUpdated(iteration, this.context.stats()));
      if (!discoveryNeedsRefinement(plan)) break;
      if (iteration >= this.maxIterations) break; // discovery applied, relevance skipped (as the original)
      const loaded = await this.snapshot(input.signal, true);
      const relevance = await inPhase('relevance', iteration, () =>
        this.relevance(input, loaded, plan.discovery_analysis),
      );
      if (relevance === null) continue;
      safely(() => this.observer?.refinementPlan(iteration, relevance));
      this.applyRelevance(relevance, input.ctx, iteration);
      safely(() => this.observer?.contextUpdated(iteration, this.context.stats()));
    }
    return { iteration, snapshot: await this.snapshot(input.signal, true) };
  }

  /** Searches (skipping exact repeats), loads and expansions, shared by discovery plans and refine hints. */
  async load(
    searches: readonly string[],
    uris: readonly string[],
    tools: readonly string[],
    input: Pick<ContextRoundInput, 'catalog' | 'ctx' | 'signal'>,
  ): Promise<void> {
    for (const query of searches) {
      throwIfAborted(input.signal);
      if (this.context.searched(query)) continue;
      try {
        const hits = await cancellable(input.signal, () => this.context.search(query, input.signal));
        input.ctx.debug(`Searched "${query}": ${hits.length} hit(s)`);
      } catch (err) {
        if (input.signal?.aborted) throw err;
        // One failed search must not sink the step: the model sees the context without it.
        input.ctx.warning(`Search "${query}" failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    for (const uri of uris) this.context.queryResource(uri);
    await this.lookForMissingTools(tools, input);
    const expanded = this.context.expandTools(tools, input.catalog);
    if (expanded.length > 0) input.ctx.debug(`Expanded tools: ${expanded.join(', ')}`);
  }

  /** Tools asked for or kept expanded that the catalog does not offer now may have appeared: look for them first. */
  private async lookForMissingTools(
    asked: readonly string[],
    input: Pick<ContextRoundInput, 'catalog' | 'signal'>,
  ): Promise<void> {
    if (!this.findTools) return;
    const wanted = new Set([...asked, ...this.context.expandedTools].map((n) => n.trim()));
    const missing = [...wanted].filter((name) => name !== '' && !input.catalog.isAvailable(name));
    if (missing.length === 0) return;
    const find = this.findTools;
    await cancellable(input.signal, () => find(missing).catch(() => undefined));
  }

  /**
   * The visible segments, rendered by the resource-service. Each iteration starts from a fresh rendering; later in the
   * same iteration (`reuse`), a workspace that the plans left as it was (a discovery that asked for nothing new, as
   * most last rounds do) is shown as rendered then, one model call earlier, instead of being rendered again.
   */
  private async snapshot(signal: AbortSignal | undefined, reuse: boolean): Promise<ContextSnapshot> {
    if (reuse && this.last?.key === this.context.snapshotKey()) return this.last.snapshot;
    const snapshot = await cancellable(signal, () => this.context.snapshot(signal));
    this.last = { key: this.context.snapshotKey(), snapshot };
    return snapshot;
  }

  private applyDiscovery(plan: DiscoveryPlan, input: ContextRoundInput): Promise<void> {
    return this.load(plan.search_queries, plan.query_resources, plan.expand_tools, input);
  }

  private applyRelevance(plan: RefinementPlan, ctx: ExecutionContext, iteration: number): void {
    for (const uri of plan.exclude_resources) this.context.excludeResource(uri);
    for (const { uri, property } of plan.exclude_properties) this.context.excludeProperty(uri, property);
    this.context.collapseTools(plan.collapse_tools);
    if (plan.sorted_segments.length > 0) this.context.sortResources(plan.sorted_segments);
    if (plan.exclude_resources.length > 0)
      ctx.debug(`Excluded ${plan.exclude_resources.length} resource(s) on iteration ${iteration}`);
  }

  private async discover(input: ContextRoundInput, snapshot: ContextSnapshot): Promise<DiscoveryPlan | null> {
    try {
      return await this.calls.structured(
        'context_discovery',
        {
          template: 'discover_context',
          directive: contentDirective(this.lang, input.beliefs),
          instruction: 'Plan the context discovery.',
          variables: {
            goal: input.goal.description,
            assessment: input.assessment,
            segments: segmentViews(snapshot.segments),
            nonexistent_uris: [...snapshot.nonexistentUris],
            search_history: this.context.searchHistory.slice(-SEARCH_HISTORY_SHOWN),
            tools: toolViews(input.catalog, this.context.expandedTools),
          },
        },
        DiscoveryPlan,
        'DiscoveryPlan',
        input.signal,
      );
    } catch (err) {
      if (!isModelOutputError(err)) throw err;
      // The context phases only improve the context: without a usable plan, decide on what is loaded.
      input.ctx.warning('Context discovery gave no usable plan; deciding with the current context');
      return null;
    }
  }

  private async relevance(
    input: ContextRoundInput,
    snapshot: ContextSnapshot,
    discoveryAnalysis: string,
  ): Promise<RefinementPlan | null> {
    try {
      return await this.calls.structured(
        'context_relevance',
        {
          template: 'analyze_relevance',
          directive: contentDirective(this.lang, input.beliefs),
          instruction: 'Rate the relevance of the loaded context.',
          variables: {
            goal: input.goal.description,
            assessment: input.assessment,
            segments: segmentViews(snapshot.segments),
            tools: toolViews(input.catalog, this.context.expandedTools),
            discovery_analysis: discoveryAnalysis,
          },
        },
        RefinementPlan,
        'RefinementPlan',
        input.signal,
      );
    } catch (err) {
      if (!isModelOutputError(err)) throw err;
      input.ctx.warning('Context relevance gave no usable plan; keeping the context as loaded');
      return null;
    }
  }
}
