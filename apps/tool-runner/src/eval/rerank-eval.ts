// Reranking for the retrieval evaluation (`npm run eval:retrieval`): each question's hybrid hits go through the real
// `rerank` tool (its prompt, its model call through the ChatModel port, its output checks), so the figures measure
// what the agent's `rerank` step would do to the order. Also the scripted reranker the offline evaluation serves
// through the scripted OpenAI-compatible model: a word-overlap stand-in for a model, not a model.
import type { ChatModel } from '@novelrag/agenturn';
import { type ElementContext, SCHEMA_VERSION, Subjects, ToolInvocation } from '@novelrag/contracts';
import { NunjucksPromptRenderer, findTemplatesRoot } from '@novelrag/llm';
import type { ToolContext } from '@novelrag/tool-kit';
import { ToolLlm } from '../prompts/tool-llm';
import { docIdOf, elementText } from '../tools/retrieval/documents';
import { rerankTool } from '../tools/retrieval/rerank.tool';
import type { ToolDeps } from '../tools/tool-deps';

/** A hybrid search hit as the repository returns it. */
export interface EvalHit {
  readonly uri: string;
  readonly element: ElementContext;
}

/** Reorders a question's hits; resolves with their URIs, best first. */
export type Reranker = (question: string, lang: string, hits: readonly EvalHit[]) => Promise<string[]>;

const quiet = () => undefined;

function contextOf(invocation: ToolInvocation): ToolContext {
  return {
    invocation,
    deadline: invocation.deadline,
    debug: quiet,
    info: quiet,
    warning: quiet,
    error: quiet,
    output: quiet,
    progress: quiet,
    backlog: quiet,
    confirm: () => Promise.resolve(false),
    request: () => Promise.resolve(null),
  };
}

/**
 * A reranker calling the `rerank` tool with `model` (templates from `templatesRoot`, else the repository's). A tool
 * error (the model's output stayed invalid) rejects with its code and message.
 */
export function toolReranker(
  model: ChatModel,
  options: { templatesRoot?: string; timeoutMs?: number } = {},
): Reranker {
  const renderer = new NunjucksPromptRenderer({ root: options.templatesRoot ?? findTemplatesRoot() });
  const tool = rerankTool({ llm: new ToolLlm(model, renderer) } as Pick<ToolDeps, 'llm'> as ToolDeps);
  let calls = 0;
  return async (question, lang, hits) => {
    if (hits.length === 0) return [];
    calls += 1;
    const goalId = `eval-rerank-${calls}`;
    const documents = hits.map((h) => ({ doc_id: docIdOf(h.uri), uri: h.uri, text: elementText(h.element) }));
    const invocation = ToolInvocation.parse({
      schemaVersion: SCHEMA_VERSION,
      invocationId: `${goalId}-inv`,
      goalId,
      step: 0,
      tool: 'rerank',
      params: { question, documents },
      deadline: Date.now() + (options.timeoutMs ?? 120_000),
      runtimeSubject: Subjects.goalRuntime(goalId),
      interactSubject: Subjects.goalInteract(goalId),
      lang,
    });
    const output = await tool.call(
      contextOf(invocation),
      invocation.params,
      AbortSignal.timeout(options.timeoutMs ?? 120_000),
    );
    if (output.type === 'error')
      throw new Error(`rerank failed [${output.code ?? 'TOOL_FAILED'}]: ${output.errorMessage}`);
    const ranked = JSON.parse(output.result) as { documents: { uri: string }[] };
    return ranked.documents.map((d) => d.uri);
  };
}

/** Lower-cased letter/digit bigrams of a text (Chinese characters included), for the word-overlap stand-in. */
function bigrams(text: string): Set<string> {
  const chars = Array.from(
    text
      .normalize('NFKC')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ''),
  );
  const out = new Set<string>();
  for (let i = 0; i + 2 <= chars.length; i += 1) out.add(chars.slice(i, i + 2).join(''));
  return out;
}

const SECTION = /^### (doc_[0-9a-f]+)\s*[(（]/;

/**
 * The scripted reranker's answer to a `rag_rerank` prompt (en or zh): the document ids ranked by the share of the
 * question's bigrams each document's text holds (ties keep the given order). Undefined for any other prompt.
 */
export function overlapRanking(prompt: string): { ranking: string[] } | undefined {
  const lines = prompt.split('\n');
  const heading = (names: readonly string[]) => lines.findIndex((l) => names.includes(l.trim()));
  const q = heading(['## Question', '## 问题']);
  const d = heading(['## Documents', '## 文档']);
  if (q < 0 || d < q) return undefined;
  const question = bigrams(lines.slice(q + 1, d).join('\n'));
  const docs: { id: string; text: string[] }[] = [];
  for (const line of lines.slice(d + 1)) {
    if (line.startsWith('## ')) break;
    const id = SECTION.exec(line)?.[1];
    if (id) docs.push({ id, text: [] });
    else docs.at(-1)?.text.push(line);
  }
  const score = (text: string) => {
    const own = bigrams(text);
    let shared = 0;
    for (const b of question) if (own.has(b)) shared += 1;
    return shared / (question.size || 1);
  };
  const scored = docs.map((doc, i) => ({ id: doc.id, i, score: score(doc.text.join('\n')) }));
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  return { ranking: scored.map((s) => s.id) };
}
