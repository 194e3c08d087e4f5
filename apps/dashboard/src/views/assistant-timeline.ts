import type { TraceEventOf, TraceKind } from '@novelrag/contracts';
import { badge, field, h, jsonBlock, list } from '../dom';

type Render<K extends TraceKind> = (e: TraceEventOf<K>) => HTMLElement | null;
type AssistantKind = Extract<TraceKind, `assistant.${string}`>;

const div = (...children: (HTMLElement | string | null)[]) => h('div', {}, children);

/**
 * The `assistant` agent kind: its states, its plan per thinking round, each group of tool calls (one entry listing the
 * calls that run at the same time, so parallel calls read as parallel) and its answer with suggested next inputs.
 */
export const ASSISTANT: { [K in AssistantKind]: Render<K> } = {
  'assistant.state': (e) =>
    div(badge(e.from), ' → ', badge(e.to), ` round ${e.round}`, e.reason ? field('Reason', e.reason) : null),
  'assistant.plan': (e) =>
    div(
      badge(e.action),
      field('Analysis', e.analysis),
      list('Plan', e.plan),
      list(
        'Tool tasks',
        e.tasks.map((t) => `${t.tool}: ${t.instruction}`),
      ),
    ),
  'assistant.tools': (e) =>
    h(
      'div',
      { class: e.tasks.length > 1 ? 'parallel' : '' },
      h('b', {}, `${e.tasks.length} call(s) ${e.phase === 'running' ? 'running in parallel' : 'finished'}`),
      ...e.tasks.map((t) =>
        div(
          h('b', {}, t.tool),
          ' ',
          badge(t.status),
          t.step !== undefined ? h('span', { class: 'muted' }, ` step ${t.step + 1}`) : null,
          t.error ? h('div', { class: 'error' }, `${t.error.code}: ${t.error.message}`) : null,
          t.input && e.phase === 'running' ? jsonBlock('Input', t.input) : null,
        ),
      ),
    ),
  'assistant.output': (e) =>
    div(
      e.forced ? badge('forced') : null,
      field('Answer', e.content),
      list('Suggested next inputs', e.suggestions),
    ),
};
