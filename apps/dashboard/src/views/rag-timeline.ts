// Timeline entries of `rag` goals: the route taken, what each retrieval step found, and the answer with its citations.
import type { TraceEventOf, TraceKind } from '@novelrag/contracts';
import { badge, field, h, list } from '../dom';

type RagKind = Extract<TraceKind, `rag.${string}`>;
type Render<K extends TraceKind> = (e: TraceEventOf<K>) => HTMLElement | null;

const div = (...children: (HTMLElement | string | null)[]) => h('div', {}, children);
const uris = (docs: readonly { uri: string }[]) => docs.map((d) => d.uri);

export const RAG_TIMELINE: { [K in RagKind]: Render<K> } = {
  'rag.route': (e) => div(badge(e.path), field('Why', e.reason)),
  'rag.retrieve': (e) =>
    div(h('b', {}, e.tool), field('Query', e.query), list('Documents', uris(e.documents))),
  'rag.grade': (e) => div(list('Kept', uris(e.kept)), list('Dropped', uris(e.dropped))),
  'rag.rewrite': (e) => div(field('Query', e.query), field('Why', e.reason)),
  'rag.answer': (e) =>
    div(
      badge(e.path),
      e.limited ? badge('limited') : null,
      field('Answer', e.answer),
      field('Tool calls', e.toolCalls),
      field('Citation policy', e.policy),
      list(
        'Citations',
        e.citations.map(
          (c) => `${c.verified ? '✓' : `✗ ${c.problem ?? 'unverified'}`} ${c.uri ?? c.docId}: "${c.quote}"`,
        ),
      ),
    ),
};
