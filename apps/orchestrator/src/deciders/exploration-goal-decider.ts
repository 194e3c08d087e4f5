import {
  type Goal,
  type GoalDecider,
  type InteractionHistory,
  ModelOutputError,
  autonomousGoal,
} from '@novelrag/agenturn';
import { type Aspect, DEFAULT_SEARCH_LIMIT, ResourceUri, type SegmentData } from '@novelrag/contracts';
import { contentDirective } from '@novelrag/llm';
import { z } from 'zod';
import { ModelCalls } from '../loop/model-calls';
import type { GoalDeciderOptions, RandomSource } from './decider-options';
import { RECENT_OPERATIONS, RecencyWeighter, weightedIndex } from './weighted';

const HISTORY_SHOWN = 5;
const MAX_SUGGESTED_URIS = 12;
const MAX_SEARCHES = 3;

const GoalAnswer = z.object({ goal: z.string().describe('The goal to pursue next') });
const ExplorationContext = z.object({
  query_resources: z.array(z.string()).describe('URIs worth loading around the element'),
  search_queries: z.array(z.string()).describe('One to three focused searches'),
});
const GapAnalysis = z.object({
  priority_concern: z.enum(['creation_aspect', 'creation_element', 'enrichment', 'verification']),
  reasoning: z.string(),
});
type ElementSegment = Extract<SegmentData, { kind: 'element' }>;
type AspectSegment = Extract<SegmentData, { kind: 'aspect' }>;

interface AspectSummary {
  readonly name: string;
  readonly description: string;
  readonly element_count: number;
  readonly sample_element_ids: readonly string[];
}

/**
 * Finds work by exploring the repository, in three tiers: bootstrap (no aspect yet: propose the first aspect from the
 * beliefs), populate (aspects without elements: seed one, chosen with recency weighting), explore (pick an element by
 * recency-weighted chance, load what surrounds it, analyse which concept is missing or thin, write a goal for it).
 */
export class ExplorationGoalDecider implements GoalDecider {
  readonly name = 'exploration';
  private readonly calls: ModelCalls;
  private readonly random: RandomSource;

  constructor(private readonly options: GoalDeciderOptions) {
    this.calls = new ModelCalls(options.model, options.renderer, options.observer, options.lang);
    this.random = options.random ?? Math.random;
  }

  async nextGoal(
    beliefs: readonly string[],
    history?: InteractionHistory,
    signal?: AbortSignal,
  ): Promise<Goal | null> {
    const resources = this.options.resources;
    const { aspects } = await resources.aspectsList({}, signal);
    const shared = { beliefs: [...beliefs], history: history?.formatRecent(HISTORY_SHOWN) ?? '' };
    if (aspects.length === 0) {
      const goal = await this.writeGoal('bootstrap_from_beliefs', shared, beliefs, signal);
      return autonomousGoal(goal, this.name, 'phase=bootstrap');
    }
    const reply = await resources.segments(
      { segments: aspects.map((a) => ({ uri: `/${a.name}`, excludedProperties: [] })), excludedUris: [] },
      signal,
    );
    const aspectSegments = reply.segments.filter((s): s is AspectSegment => s.kind === 'aspect');
    const summaries = aspectSegments.map((s) => summaryOf(s, aspects));
    const weighter = new RecencyWeighter(
      (await resources.operations({ limit: RECENT_OPERATIONS }, signal)).entries,
    );
    const candidates = aspectSegments.flatMap((s) =>
      s.rootIds.map((id) => ({ uri: `${s.uri}/${id}`, aspect: s.name })),
    );
    if (candidates.length === 0) {
      const index = weightedIndex(
        aspectSegments.map((s) => weighter.aspectWeight(s.name)),
        this.random,
      );
      const aspect = aspectSegments[index];
      if (aspect === undefined) return null;
      const goal = await this.writeGoal(
        'goal_from_exploration',
        {
          ...shared,
          focus: 'populate',
          element: null,
          aspect: aspectView(aspect),
          aspects: summaries,
          gap: null,
        },
        beliefs,
        signal,
      );
      return autonomousGoal(goal, this.name, `phase=populate, aspect=${aspect.name}`);
    }
    const chosen =
      candidates[
        weightedIndex(
          candidates.map((c) => weighter.elementWeight(c.uri, c.aspect)),
          this.random,
        )
      ];
    if (chosen === undefined) return null;
    return this.explore(chosen, aspectSegments, summaries, shared, beliefs, signal);
  }

  private async explore(
    chosen: { uri: string; aspect: string },
    aspectSegments: readonly AspectSegment[],
    summaries: readonly AspectSummary[],
    shared: { beliefs: string[]; history: string },
    beliefs: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<Goal | null> {
    const resources = this.options.resources;
    const loaded = await resources.segments(
      { segments: [{ uri: chosen.uri, excludedProperties: [] }], excludedUris: [] },
      signal,
    );
    const element = loaded.segments.find((s): s is ElementSegment => s.kind === 'element');
    if (element === undefined) return null;
    const view = elementView(element);
    const plan = await this.calls.structured(
      'goal_decider',
      {
        template: 'exploration_context_discovery',
        directive: contentDirective(this.options.lang, beliefs),
        instruction: 'List the resources and searches that surround this element.',
        variables: { element: view, aspects: summaries, beliefs: shared.beliefs },
      },
      ExplorationContext,
      'ExplorationContext',
      signal,
    );
    const { resolved, related } = await this.surroundings(chosen.uri, element, plan, signal);
    const gap = await this.calls.structured(
      'goal_decider',
      {
        template: 'concept_gap_analysis',
        directive: contentDirective(this.options.lang, beliefs),
        instruction: 'Find the most useful gap around this element.',
        variables: {
          element: view,
          related,
          resolved: resolved.segments.map((s) => s.uri),
          unresolved: resolved.missing.map((uri) => ({
            uri,
            descriptions: element.relationships[uri] ?? [],
          })),
          aspects: summaries,
          beliefs: shared.beliefs,
        },
      },
      GapAnalysis,
      'ConceptGapAnalysis',
      signal,
    );
    const aspect = aspectSegments.find((s) => s.name === chosen.aspect);
    const goal = await this.writeGoal(
      'goal_from_exploration',
      {
        ...shared,
        focus: gap.priority_concern,
        element: view,
        aspect: aspect ? aspectView(aspect) : null,
        aspects: summaries,
        gap,
      },
      beliefs,
      signal,
    );
    return autonomousGoal(
      goal,
      this.name,
      `phase=explore, element=${chosen.uri}, aspect=${chosen.aspect}, focus=${gap.priority_concern}`,
    );
  }

  /** The model's suggestions, the element's relationship targets and ancestors (loaded), and what searches find. */
  private async surroundings(
    uri: string,
    element: ElementSegment,
    plan: { query_resources: readonly string[]; search_queries: readonly string[] },
    signal: AbortSignal | undefined,
  ) {
    const resources = this.options.resources;
    const ancestors = uri
      .split('/')
      .slice(1, -1)
      .map((_, i, parts) => `/${parts.slice(0, i + 1).join('/')}`);
    const wanted = [
      ...plan.query_resources.slice(0, MAX_SUGGESTED_URIS),
      ...Object.keys(element.relationships),
      ...ancestors,
    ]
      .map((u) => u.trim())
      .filter((u, i, all) => u !== uri && all.indexOf(u) === i && ResourceUri.safeParse(u).success);
    const resolved =
      wanted.length === 0
        ? { segments: [], missing: [] }
        : await resources.segments(
            { segments: wanted.map((u) => ({ uri: u, excludedProperties: [] })), excludedUris: [] },
            signal,
          );
    const related: { uri: string; id: string; score: number }[] = [];
    for (const query of plan.search_queries.slice(0, MAX_SEARCHES)) {
      if (query.trim() === '') continue;
      const { hits } = await resources.search(
        { query: query.trim().slice(0, 2_000), limit: DEFAULT_SEARCH_LIMIT },
        signal,
      );
      for (const hit of hits)
        if (hit.uri !== uri && !related.some((r) => r.uri === hit.uri))
          related.push({ uri: hit.uri, id: hit.element.id, score: hit.score });
    }
    return { resolved, related };
  }

  private async writeGoal(
    template: string,
    variables: Record<string, unknown>,
    beliefs: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<string> {
    const { goal } = await this.calls.structured(
      'goal_decider',
      {
        template,
        directive: contentDirective(this.options.lang, beliefs),
        instruction: 'Write the goal.',
        variables,
      },
      GoalAnswer,
      'ExplorationGoal',
      signal,
    );
    const description = goal.trim();
    if (description === '') {
      throw new ModelOutputError({
        issues: [{ path: 'goal', message: 'empty goal' }],
        rawOutputLength: 0,
        attempts: 1,
        purpose: 'goal_decider',
      });
    }
    return description;
  }
}

function summaryOf(segment: AspectSegment, aspects: readonly Aspect[]): AspectSummary {
  const aspect = aspects.find((a) => a.name === segment.name);
  return {
    name: segment.name,
    description: aspect?.description ?? '',
    element_count: segment.rootIds.length,
    sample_element_ids: segment.rootIds.slice(0, 5),
  };
}

function aspectView(segment: AspectSegment): { name: string; metadata: string } {
  return { name: segment.name, metadata: JSON.stringify(segment.metadata) };
}

function elementView(element: ElementSegment): Record<string, unknown> {
  return {
    uri: element.uri,
    id: element.id,
    aspect: element.aspect,
    properties: JSON.stringify(element.properties, null, 2),
    relationships: Object.entries(element.relationships).map(([uri, d]) => ({
      uri,
      description: d.join(' '),
    })),
    children: Object.entries(element.childIds).map(([key, ids]) => ({ key, ids })),
  };
}
