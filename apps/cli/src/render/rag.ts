// Trace lines of `rag` goals (questions answered from the repository with citations).
import type { AnswerCitation, TraceEventOf, TraceKind } from '@novelrag/contracts';
import { list, oneLine, type Style } from './text';
import type { TraceRenderOptions } from './trace';

type Renderer<K extends TraceKind> = (
  event: TraceEventOf<K>,
  options: TraceRenderOptions,
) => string | undefined;

const tag = (s: Style, label: string) => s.cyan(`[${label}]`);
const uris = (docs: readonly { uri: string }[]) => (docs.length ? list(docs.map((d) => d.uri)) : 'none');

/** One line per citation: the document, whether the quote was found in it, and the quote. */
export function renderCitations(citations: readonly AnswerCitation[], s: Style): string[] {
  return citations.map((c, i) => {
    const mark = c.verified ? s.green('✓ verified') : s.yellow(`✗ unverified (${c.problem ?? 'unknown'})`);
    return `  [${i + 1}] ${c.uri ?? c.docId} ${mark}: "${oneLine(c.quote, 120)}"`;
  });
}

export const RAG_RENDERERS: { readonly [K in Extract<TraceKind, `rag.${string}`>]: Renderer<K> } = {
  'rag.route': (event, { style: s }) =>
    `${tag(s, 'route')} ${s.bold(event.path === 'direct' ? 'direct answer' : 'retrieve')}: ${oneLine(event.reason, 160)}`,
  'rag.retrieve': (event, { style: s }) =>
    `${tag(s, event.tool === 'rerank' ? 'rerank' : 'retrieve')}${event.query ? ` "${oneLine(event.query, 80)}"` : ''} → ${event.documents.length} document(s): ${oneLine(uris(event.documents), 160)}`,
  'rag.grade': (event, { style: s }) =>
    `${tag(s, 'grade')} kept ${event.kept.length}, dropped ${event.dropped.length}${event.dropped.length ? s.dim(` (${oneLine(uris(event.dropped), 120)})`) : ''}`,
  'rag.rewrite': (event, { style: s }) =>
    `${tag(s, 'rewrite')} "${oneLine(event.query, 120)}"${event.reason ? s.dim(` — ${oneLine(event.reason, 100)}`) : ''}`,
  'rag.answer': (event, { style: s }) =>
    [
      `${tag(s, 'answer')} ${event.citations.length} citation(s), ${event.unverified} unverified (${event.policy}) after ${event.toolCalls} tool call(s)${event.limited ? s.yellow(' — limited: tool-call cap reached') : ''}`,
      ...renderCitations(event.citations, s),
    ].join('\n'),
};
