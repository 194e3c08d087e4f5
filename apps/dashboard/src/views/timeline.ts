import type { TraceEvent, TraceEventOf, TraceKind } from '@novelrag/contracts';
import { badge, duration, field, h, jsonBlock, list, time } from '../dom';
import { ASSISTANT } from './assistant-timeline';
import { RAG_TIMELINE } from './rag-timeline';

type Render<K extends TraceKind> = (e: TraceEventOf<K>) => HTMLElement | null;
type Renderers = { [K in TraceKind]: Render<K> };

const div = (...children: (HTMLElement | string | null)[]) => h('div', {}, children);
const errorLine = (e: { code: string; message: string } | undefined) =>
  e ? h('div', { class: 'error' }, `${e.code}: ${e.message}`) : null;

const outcome = (e: TraceEventOf<'goal.completed' | 'goal.failed' | 'goal.abandoned' | 'goal.cancelled'>) =>
  div(
    badge(e.outcome.status),
    field('Response', e.outcome.response),
    field('Reason', e.outcome.reason),
    field('Steps', e.outcome.steps),
    field('Tokens', e.outcome.tokens.totalTokens),
  );

/** The goal's lifecycle: accepted, started, status changes, the end. */
const LIFECYCLE: Pick<Renderers, `goal.${string}` & TraceKind> = {
  'goal.accepted': (e) =>
    div(
      field('Request', e.request),
      field('Goal', e.goal),
      field('Language', e.lang),
      field('Source', e.source),
    ),
  'goal.started': (e) =>
    div(field('Goal', e.goal), field('Attempt', e.attempt), field('Resumed from step', e.resumedFromStep)),
  'goal.status_changed': (e) =>
    div(badge(e.from), ' → ', badge(e.to), e.reason ? h('span', { class: 'muted' }, ` ${e.reason}`) : null),
  'goal.completed': outcome,
  'goal.failed': (e) => div(outcome(e), errorLine(e.error)),
  'goal.abandoned': outcome,
  'goal.cancelled': outcome,
};

/** The four phases of a step: assessment, discovery (and the context it loaded), relevance, decision and verdict. */
const PHASES: Pick<
  Renderers,
  'assessment' | 'discovery.plan' | 'context.updated' | 'refinement.plan' | 'decision' | 'analysis.verdict'
> = {
  assessment: ({ assessment: a }) =>
    div(
      list('Finished', a.finished_tasks),
      field('Remaining', a.remaining_work_summary),
      field('Required context', a.required_context),
      field('Expected actions', a.expected_actions),
      list('Success criteria', a.success_criteria),
      list('Boundaries', a.boundary_conditions),
      list('Exceptions', a.exception_conditions),
    ),
  'discovery.plan': ({ plan }) =>
    div(
      field('Analysis', plan.discovery_analysis),
      list('Searches', plan.search_queries),
      list('Load', plan.query_resources),
      list('Expand tools', plan.expand_tools),
    ),
  'context.updated': (e) =>
    h(
      'div',
      { class: 'inline' },
      `${e.segments} segments · ${e.searches} searches · ${e.excludedUris} hidden · ${e.nonexistentUris} missing`,
      e.expandedTools.length ? ` · tools: ${e.expandedTools.join(', ')}` : '',
    ),
  'refinement.plan': ({ plan }) =>
    div(
      field('Relevance', plan.relevance_analysis),
      list('Hide', plan.exclude_resources),
      list('Collapse tools', plan.collapse_tools),
      list('Order', plan.sorted_segments),
    ),
  decision: ({ decision: d }) =>
    d.decision_type === 'execute'
      ? div(
          h('b', {}, `execute ${d.tool}`),
          h('span', { class: 'muted' }, ` (confidence ${d.confidence})`),
          field('Situation', d.situation_analysis),
          field('Reasoning', d.reasoning),
          jsonBlock('Parameters', d.params),
        )
      : div(
          h('b', {}, `finalize: ${d.status}`),
          field('Situation', d.situation_analysis),
          field('Response', d.response),
          list('Evidence', d.evidence),
          list('Gaps', d.gaps),
        ),
  'analysis.verdict': ({ verdict: v }) =>
    div(
      badge(v.verdict),
      field('Analysis', v.analysis),
      v.approval
        ? field(
            'Approval',
            `${v.approval.ready ? 'ready' : 'not ready'} (${v.approval.confidence}) ${v.approval.notes}`,
          )
        : null,
      list('Hint: search', v.exploration_hints?.search_terms ?? []),
      list('Hint: load', v.exploration_hints?.resource_paths ?? []),
      list('Hint: expand', v.exploration_hints?.tools_to_expand ?? []),
      v.refinement ? field('Refined remaining work', v.refinement.remaining_work_summary) : null,
    ),
};

/** Tool steps, their interactions and runtime output, model calls, the resolution and limits. */
const ACTIONS: Omit<
  Renderers,
  keyof typeof LIFECYCLE | keyof typeof PHASES | keyof typeof ASSISTANT | keyof typeof RAG_TIMELINE
> = {
  'operation.dispatched': (e) =>
    div(
      h('b', {}, e.tool),
      field('Reason', e.reason),
      field('Attempt', e.attempt),
      jsonBlock('Parameters', e.params, true),
    ),
  'operation.outcome': (e) =>
    div(
      h('b', {}, e.tool),
      ' ',
      badge(e.status),
      h('span', { class: 'muted' }, ` ${duration(e.durationMs)}${e.replayed ? ' (replayed)' : ''}`),
      e.result ? h('pre', { class: 'result' }, e.result) : null,
      errorLine(e.error),
    ),
  'interaction.requested': ({ interaction: i }) =>
    div(h('b', {}, `${i.tool} asks`), ' ', i.kind === 'confirm' ? i.message : i.prompt),
  'interaction.answered': (e) =>
    div(
      'approved' in e.answer ? (e.answer.approved ? 'approved' : 'declined') : `answered: ${e.answer.text}`,
      e.answeredBy ? h('span', { class: 'muted' }, ` by ${e.answeredBy}`) : null,
    ),
  'interaction.timed_out': (e) => div(`interaction ${e.interactionId} timed out (no answer counts as no)`),
  runtime: ({ event: r }) =>
    h(
      'div',
      { class: `runtime runtime-${r.kind}` },
      h('b', {}, r.kind),
      ' ',
      'message' in r ? r.message : JSON.stringify(r),
    ),
  'llm.call': (e) =>
    h(
      'div',
      { class: 'inline' },
      `${e.purpose} · ${e.model} · ${e.promptTokens}+${e.completionTokens} tokens · ${duration(e.latencyMs)}`,
      e.attempts > 1 ? ` · ${e.attempts} attempts` : '',
      e.ok ? '' : ' · failed',
      errorLine(e.error),
    ),
  resolution: (e) => div(badge(e.status), field('Response', e.response), field('Reason', e.reason)),
  'limit.hit': (e) => div(`limit ${e.limit}: ${e.value} of ${e.max}`),
};

const RENDERERS: Renderers = { ...LIFECYCLE, ...PHASES, ...ACTIONS, ...ASSISTANT, ...RAG_TIMELINE };

/** One trace event as a timeline entry: each phase shows what the loop decided, not just that it ran. */
export function timelineEntry(event: TraceEvent): HTMLElement {
  const head = h(
    'div',
    { class: 'entry-head' },
    h('span', { class: 'kind' }, event.kind),
    event.step !== undefined ? h('span', { class: 'muted' }, `step ${event.step + 1}`) : null,
    'iteration' in event && event.iteration !== undefined
      ? h('span', { class: 'muted' }, `round ${event.iteration}`)
      : null,
    h('span', { class: 'muted right' }, `#${event.seq} · ${time(event.at)}`),
  );
  const render = RENDERERS[event.kind] as Render<TraceKind> | undefined;
  return h(
    'li',
    { class: `entry entry-${event.kind.replace(/\./g, '-')}`, 'data-kind': event.kind },
    head,
    render ? render(event) : jsonBlock('Event', event),
  );
}

/**
 * LLM calls whose time spans overlap ran in parallel: each call ends at `at` and started `latencyMs` before. Marks the
 * entry of such a call (and the one it overlaps) so the timeline shows them side by side.
 */
export function markParallel(entries: readonly { event: TraceEvent; el: HTMLElement }[]): void {
  let prev: { end: number; el: HTMLElement } | null = null;
  for (const { event, el } of entries) {
    if (event.kind !== 'llm.call') {
      prev = null;
      continue;
    }
    const end = Date.parse(event.at);
    if (prev && end - event.latencyMs < prev.end) {
      prev.el.classList.add('parallel');
      el.classList.add('parallel');
    }
    prev = { end, el };
  }
}
