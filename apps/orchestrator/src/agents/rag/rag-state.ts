// What a `rag` pursuit knows at each decision, rebuilt from its executed steps alone (so a resumed pursuit knows the
// same): the documents held now, the queries tried, and what each step did, for the prompts and the trace.
import { type OperationOutcome, truncateText } from '@novelrag/agenturn';
import type { TracedDocument } from '@novelrag/contracts';
import { z } from 'zod';

/** The retrieval tools the agent may call (`memory_retrieve` only when a runner serves it). */
export const RAG_TOOLS = ['vector_retrieve', 'rerank', 'grade', 'query_rewrite', 'memory_retrieve'] as const;
export type RagToolName = (typeof RAG_TOOLS)[number];

/** A document as the retrieval tools return it. */
const RagDocument = z.object({
  doc_id: z.string().min(1).max(64),
  uri: z.string().min(1).max(1_000),
  text: z.string().max(20_000),
});
export type RagDocument = z.infer<typeof RagDocument>;

const DocumentsResult = z.object({ documents: z.array(RagDocument) });
const GradeResult = DocumentsResult.extend({
  // Bounded like the documents (a dropped one is traced as a TracedDocument, whose bounds readers check).
  dropped: z.array(RagDocument.pick({ doc_id: true, uri: true })).default([]),
});
const RewriteResult = z.object({ query: z.string().min(1), reason: z.string().optional() });

/** One executed step as the tool-choosing prompt shows it. */
export interface StepView {
  readonly tool: string;
  readonly params: string;
  readonly status: string;
  readonly summary: string;
}

export interface RagState {
  /** The documents the next grade, rerank or answer works on (the last retrieval, as graded and reranked since). */
  readonly documents: readonly RagDocument[];
  /** The search queries tried (`vector_retrieve`), oldest first. */
  readonly triedQueries: readonly string[];
  readonly steps: readonly StepView[];
}

function parsed<T>(schema: z.ZodType<T>, step: OperationOutcome): T | undefined {
  if (step.status !== 'success' || step.result === null) return undefined;
  try {
    const value = schema.safeParse(JSON.parse(step.result));
    return value.success ? value.data : undefined;
  } catch {
    return undefined;
  }
}

/** What the agent sends a tool as parameters, without the documents it passes along (shown in prompts). */
function paramsView(params: Readonly<Record<string, unknown>>): string {
  const { documents, question: _question, ...rest } = params;
  const shown = Array.isArray(documents) ? { ...rest, documents: `${documents.length} held` } : rest;
  return truncateText(JSON.stringify(shown), 300);
}

function summaryOf(step: OperationOutcome): string {
  if (step.status !== 'success') return truncateText(step.errorMessage ?? step.status, 200);
  const tool = step.operation.tool;
  const docs = parsed(DocumentsResult, step);
  if (tool === 'query_rewrite') return `query: ${parsed(RewriteResult, step)?.query ?? '?'}`;
  if (docs) return `${docs.documents.length} document(s)`;
  return truncateText(step.result ?? '', 300);
}

/** The state after the given steps. */
export function ragState(steps: readonly OperationOutcome[]): RagState {
  let documents: readonly RagDocument[] = [];
  const triedQueries: string[] = [];
  for (const step of steps) {
    const { tool, parameters: params } = step.operation;
    if (tool === 'vector_retrieve' && typeof params['query'] === 'string') triedQueries.push(params['query']);
    if (tool === 'vector_retrieve' || tool === 'rerank' || tool === 'grade') {
      const result = parsed(DocumentsResult, step);
      if (result) documents = result.documents;
    }
  }
  const views = steps.map((s) => ({
    tool: s.operation.tool,
    params: paramsView(s.operation.parameters),
    status: s.status,
    summary: summaryOf(s),
  }));
  return { documents, triedQueries, steps: views };
}

const traced = (d: { doc_id: string; uri: string }): TracedDocument => ({ docId: d.doc_id, uri: d.uri });

/** The trace event of an executed retrieval step (none for other tools or failed steps). */
export function stepEvent(step: OperationOutcome) {
  const { tool, parameters: params } = step.operation;
  if (tool === 'vector_retrieve' || tool === 'rerank') {
    const result = parsed(DocumentsResult, step);
    if (!result) return undefined;
    const query = typeof params['query'] === 'string' ? params['query'] : undefined;
    return {
      kind: 'rag.retrieve' as const,
      tool,
      ...(query ? { query } : {}),
      documents: result.documents.map(traced),
    };
  }
  if (tool === 'grade') {
    const result = parsed(GradeResult, step);
    if (!result) return undefined;
    return {
      kind: 'rag.grade' as const,
      kept: result.documents.map(traced),
      dropped: result.dropped.map(traced),
    };
  }
  if (tool === 'query_rewrite') {
    const result = parsed(RewriteResult, step);
    if (!result) return undefined;
    return {
      kind: 'rag.rewrite' as const,
      query: result.query,
      ...(result.reason ? { reason: result.reason } : {}),
    };
  }
  return undefined;
}
