import type { GoalOutcome, RuntimeEvent, TraceEvent, TraceEventOf, TraceKind } from '@novelrag/contracts';
import {
  renderAssistantOutput,
  renderAssistantPlan,
  renderAssistantState,
  renderAssistantTools,
} from './assistant-trace';
import { RAG_RENDERERS } from './rag';
import { clip, compactJson, list, oneLine, type Style } from './text';

export interface TraceRenderOptions {
  readonly style: Style;
  /** Also show LLM calls, runtime debug lines and context statistics. */
  readonly verbose: boolean;
}

/** The phase a trace event belongs to, for the progress display. */
export function phaseOf(event: TraceEvent): string | undefined {
  switch (event.kind) {
    case 'assessment':
      return 'assessment';
    case 'discovery.plan':
    case 'context.updated':
      return 'discovery';
    case 'refinement.plan':
      return 'refinement';
    case 'decision':
      return 'decision';
    case 'analysis.verdict':
      return 'verdict';
    case 'operation.dispatched':
    case 'operation.outcome':
    case 'runtime':
      return 'tool';
    case 'interaction.requested':
    case 'interaction.answered':
    case 'interaction.timed_out':
      return 'interaction';
    case 'resolution':
    case 'goal.completed':
    case 'goal.failed':
    case 'goal.abandoned':
    case 'goal.cancelled':
      return 'outcome';
    case 'assistant.state':
    case 'assistant.plan':
      return 'thinking';
    case 'assistant.tools':
      return 'tool';
    case 'assistant.output':
      return 'outcome';
    case 'rag.route':
    case 'rag.retrieve':
    case 'rag.grade':
    case 'rag.rewrite':
      return 'retrieval';
    case 'rag.answer':
      return 'answer';
    case 'goal.accepted':
    case 'goal.started':
    case 'goal.status_changed':
    case 'llm.call':
    case 'limit.hit':
      return undefined;
  }
}

type Line = string | undefined;
type Renderer<K extends TraceKind> = (event: TraceEventOf<K>, options: TraceRenderOptions) => Line;

const iteration = (n: number | undefined) => (n !== undefined ? ` #${n}` : '');
const tag = (s: Style, label: string) => s.cyan(`[${label}]`);

function renderRuntime(r: RuntimeEvent, { style: s, verbose }: TraceRenderOptions): Line {
  switch (r.kind) {
    case 'output':
      return `${tag(s, 'output')} ${oneLine(r.message, 300)}`;
    case 'info':
      return `${s.dim(`[${r.kind}]`)} ${oneLine(r.message, 200)}`;
    case 'warning':
      return `${s.yellow('[warning]')} ${oneLine(r.message, 200)}`;
    case 'error':
      return `${s.red('[error]')} ${oneLine(r.message, 200)}`;
    case 'debug':
      return verbose ? s.dim(`[debug] ${oneLine(r.message, 200)}`) : undefined;
    case 'progress':
      return s.dim(`[progress] ${r.key}: ${oneLine(r.value, 120)}`);
    case 'backlog':
      return `${tag(s, 'backlog')} + ${compactJson(r.content, 140)}`;
    case 'llm.call':
      return undefined; // the orchestrator traces a tool's model call as its own llm.call event
  }
  return undefined;
}

const renderGoalStarted: Renderer<'goal.started'> = (event, { style: s }) =>
  `${s.bold('▶ pursuing')} ${oneLine(event.goal, 200)}${event.attempt > 1 ? s.yellow(` (attempt ${event.attempt}, resumed at step ${event.resumedFromStep ?? 0})`) : ''}`;

const renderStatusChanged: Renderer<'goal.status_changed'> = (event, { style: s, verbose }) =>
  verbose || event.to === 'waiting_for_input'
    ? s.dim(`· status ${event.from} → ${event.to}${event.reason ? ` (${oneLine(event.reason, 80)})` : ''}`)
    : undefined;

const renderAssessment: Renderer<'assessment'> = (event, { style: s }) =>
  `${tag(s, `assessment${iteration(event.iteration)}`)} remaining: ${oneLine(event.assessment.remaining_work_summary, 140)}${
    event.assessment.success_criteria.length
      ? s.dim(` · success: ${list(event.assessment.success_criteria, 2)}`)
      : ''
  }`;

const renderDiscovery: Renderer<'discovery.plan'> = (event, { style: s }) =>
  `${tag(s, `discovery${iteration(event.iteration)}`)} search: ${list(event.plan.search_queries)} · load: ${list(event.plan.query_resources)} · expand: ${list(event.plan.expand_tools)}`;

const renderContext: Renderer<'context.updated'> = (event, { style: s, verbose }) =>
  verbose
    ? s.dim(
        `[context #${event.iteration}] ${event.segments} segments, ${event.excludedUris} hidden, ${event.nonexistentUris} missing, ${event.searches} searches, tools: ${list(event.expandedTools)}`,
      )
    : undefined;

const renderRefinement: Renderer<'refinement.plan'> = (event, { style: s }) =>
  `${tag(s, `refinement${iteration(event.iteration)}`)} keep: ${list(event.plan.sorted_segments)} · drop: ${list(event.plan.exclude_resources)}${
    event.plan.collapse_tools.length ? ` · collapse: ${list(event.plan.collapse_tools)}` : ''
  }`;

const renderDecision: Renderer<'decision'> = (event, { style: s }) => {
  const d = event.decision;
  return d.decision_type === 'execute'
    ? `${tag(s, `decision${iteration(event.iteration)}`)} run ${s.bold(d.tool)} ${compactJson(d.params, 120)} ${s.dim(`— ${oneLine(d.reasoning, 100)}`)}`
    : `${tag(s, `decision${iteration(event.iteration)}`)} finalize (${d.status}): ${oneLine(d.response, 140)}`;
};

const renderVerdict: Renderer<'analysis.verdict'> = (event, { style: s }) => {
  const v = event.verdict;
  return v.verdict === 'approve'
    ? `${tag(s, `verdict${iteration(event.iteration)}`)} ${s.green('approve')}${v.approval ? s.dim(` (${oneLine(v.approval.confidence, 40)})`) : ''}`
    : `${tag(s, `verdict${iteration(event.iteration)}`)} ${s.yellow('refine')}: ${oneLine(v.refinement?.remaining_work_summary ?? v.analysis, 140)}`;
};

const renderDispatched: Renderer<'operation.dispatched'> = (event, { style: s }) =>
  `${tag(s, 'tool')} → ${s.bold(event.tool)} ${compactJson(event.params, 120)}${event.attempt > 1 ? s.yellow(` (attempt ${event.attempt})`) : ''}`;

const renderToolOutcome: Renderer<'operation.outcome'> = (event, { style: s }) => {
  const ok = event.status === 'success';
  const detail = ok ? (event.result ?? '') : `${event.error?.code ?? ''} ${event.error?.message ?? ''}`;
  return `${tag(s, 'tool')} ← ${s.bold(event.tool)} ${ok ? s.green(event.status) : s.red(event.status)} in ${event.durationMs} ms${
    event.replayed ? s.dim(' (recorded result)') : ''
  }: ${oneLine(detail, 160)}`;
};

const renderInteraction: Renderer<'interaction.requested'> = (event, { style: s }) => {
  const i = event.interaction;
  // In full (bounded): the human decides on this text.
  return i.kind === 'confirm'
    ? `${s.yellow('[confirm]')} ${i.tool} asks: ${clip(i.message, 4_000)}`
    : `${s.yellow('[question]')} ${i.tool} asks: ${clip(i.prompt, 4_000)}`;
};

const renderAnswer: Renderer<'interaction.answered'> = (event, { style: s }) =>
  `${tag(s, 'answer')} ${
    'approved' in event.answer
      ? event.answer.approved
        ? 'approved'
        : 'declined'
      : `"${oneLine(event.answer.text, 80)}"`
  }${event.answeredBy ? s.dim(` by ${event.answeredBy}`) : ''}`;

const renderLlmCall: Renderer<'llm.call'> = (event, { style: s, verbose }) =>
  verbose
    ? s.dim(
        `[llm] ${event.purpose} ${event.model} ${event.promptTokens}+${event.completionTokens} tokens ${event.latencyMs} ms${event.ok ? '' : ` FAILED ${event.error?.code ?? ''}`}`,
      )
    : undefined;

/** The three final events end with the goal's outcome. */
const renderEnd = (event: { readonly outcome: GoalOutcome }, { style }: TraceRenderOptions): Line =>
  renderOutcome(event.outcome, style);

/** A renderer per event kind (a missing kind is a type error). */
const RENDERERS: { readonly [K in TraceKind]: Renderer<K> } = {
  'goal.accepted': (event, { style: s }) =>
    `${s.bold('▶ accepted')} ${oneLine(event.request ?? event.goal ?? '', 200)}`,
  'goal.started': renderGoalStarted,
  'goal.status_changed': renderStatusChanged,
  assessment: renderAssessment,
  'discovery.plan': renderDiscovery,
  'context.updated': renderContext,
  'refinement.plan': renderRefinement,
  decision: renderDecision,
  'analysis.verdict': renderVerdict,
  'operation.dispatched': renderDispatched,
  'operation.outcome': renderToolOutcome,
  'interaction.requested': renderInteraction,
  'interaction.answered': renderAnswer,
  'interaction.timed_out': (_event, { style: s }) =>
    `${s.yellow('[answer]')} nobody answered in time (treated as declined)`,
  runtime: (event, options) => renderRuntime(event.event, options),
  'llm.call': renderLlmCall,
  resolution: (event, { style: s }) =>
    `${tag(s, 'resolution')} ${event.status}: ${oneLine(event.reason, 160)}`,
  'limit.hit': (event, { style: s }) =>
    `${s.yellow('[limit]')} ${event.limit} reached (${event.value}/${event.max})`,
  'goal.completed': renderEnd,
  'goal.failed': renderEnd,
  'goal.abandoned': renderEnd,
  'goal.cancelled': renderEnd,
  'assistant.state': renderAssistantState,
  'assistant.plan': renderAssistantPlan,
  'assistant.tools': renderAssistantTools,
  'assistant.output': renderAssistantOutput,
  ...RAG_RENDERERS,
};

/** One readable line per trace event (undefined: not shown at this verbosity). */
export function renderTraceEvent(event: TraceEvent, options: TraceRenderOptions): Line {
  // The table is keyed by kind, so the renderer found for `event.kind` takes this very event.
  const render = RENDERERS[event.kind] as (event: TraceEvent, options: TraceRenderOptions) => Line;
  return render(event, options);
}

/** The closing lines of a pursuit. */
export function renderOutcome(outcome: GoalOutcome, s: Style): string {
  const head =
    outcome.status === 'completed'
      ? s.green(s.bold('✔ completed'))
      : outcome.status === 'cancelled'
        ? s.yellow(s.bold('■ cancelled'))
        : s.red(s.bold(`✘ ${outcome.status}`));
  const lines = [`${head} ${s.dim(`after ${outcome.steps} step(s), ${outcome.tokens.totalTokens} tokens`)}`];
  if (outcome.response) lines.push(outcome.response);
  if (outcome.reason && outcome.status !== 'completed')
    lines.push(s.dim(`reason: ${oneLine(outcome.reason, 300)}`));
  if (outcome.error) lines.push(s.red(`error ${outcome.error.code}: ${oneLine(outcome.error.message, 300)}`));
  return lines.join('\n');
}
