import { isAgenturnError } from '@novelrag/agenturn';
import type { ToolContext } from '@novelrag/tool-kit';
import type { ToolDeps } from '../tool-deps';
import { ContentPerspectives, ProposalRanking } from './schemas';

export interface ContentTask {
  readonly description: string;
  readonly content_key?: string;
}

export interface ContentResult {
  readonly description: string;
  readonly content_key: string | null;
  readonly content: string;
}

const NUM_PERSPECTIVES = 5;
const NUM_PROPOSALS = 2;
const MIN_CONTENT_CHARS = 10;

interface TaskInput {
  readonly spec: string;
  readonly task: ContentTask;
  readonly context: string;
}

/** Model output that stays invalid is survivable here (we fall back); cancellation and outages are not. */
function isBadOutput(err: unknown): boolean {
  return isAgenturnError(err, 'MODEL_OUTPUT_INVALID');
}

/** `count` distinct items picked uniformly at random. */
export function sample<T>(items: readonly T[], count: number, random: () => number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < count && pool.length > 0) {
    const [picked] = pool.splice(Math.floor(random() * pool.length), 1);
    if (picked !== undefined) out.push(picked);
  }
  return out;
}

/** Weighted choice with weights 2^(n-1-i): the first (best-ranked) item is the most likely. */
export function weightedChoice<T>(ranked: readonly T[], random: () => number): T | undefined {
  const n = ranked.length;
  const weights = ranked.map((_, i) => 2 ** (n - 1 - i));
  let point = random() * weights.reduce((a, b) => a + b, 0);
  for (let i = 0; i < n; i++) {
    point -= weights[i] ?? 0;
    if (point < 0) return ranked[i];
  }
  return ranked[n - 1];
}

/**
 * For each task: five perspectives, content from two of them picked at random, a ranking by the model, and a weighted
 * random choice favouring the best-ranked proposal; a generic proposal when no perspective yields usable content.
 */
export async function generateContent(
  deps: ToolDeps,
  ctx: ToolContext,
  spec: string,
  tasks: readonly ContentTask[],
  context: string,
  signal: AbortSignal,
): Promise<ContentResult[]> {
  const results: ContentResult[] = [];
  for (const task of tasks) {
    const input: TaskInput = { spec, task, context };
    const proposals = await proposalsFor(deps, ctx, input, signal);
    const ranked = proposals.length > 1 ? await rank(deps, ctx, proposals, signal) : proposals;
    const content = weightedChoice(ranked, deps.random) ?? proposals[0] ?? '';
    if (content.trim() === '') continue;
    results.push({ description: task.description, content_key: task.content_key ?? null, content });
  }
  return results;
}

async function proposalsFor(
  deps: ToolDeps,
  ctx: ToolContext,
  input: TaskInput,
  signal: AbortSignal,
): Promise<string[]> {
  const base = {
    operation_specification: input.spec,
    task_description: input.task.description,
    context: input.context,
    beliefs: ctx.invocation.beliefs ?? [],
  };
  let perspectives: { id: string; description: string; rationale: string }[] = [];
  try {
    const reply = await deps.llm.structured(
      ctx,
      {
        template: 'tool_generate_content_perspectives',
        variables: { ...base, num_perspectives: NUM_PERSPECTIVES },
        instruction: 'Propose the perspectives.',
        purpose: 'content_perspectives',
        schema: ContentPerspectives,
        schemaName: 'content_perspectives',
      },
      signal,
    );
    perspectives = reply.perspectives;
  } catch (err) {
    if (!isBadOutput(err)) throw err;
    ctx.warning('no usable perspectives; writing a generic proposal');
  }
  const proposals: string[] = [];
  for (const perspective of sample(perspectives, NUM_PROPOSALS, deps.random)) {
    const text = await deps.llm.text(
      ctx,
      {
        template: 'tool_generate_content_from_perspective',
        variables: {
          ...base,
          perspective_description: perspective.description,
          perspective_rationale: perspective.rationale,
        },
        instruction: 'Write the content.',
        purpose: 'content_from_perspective',
      },
      signal,
    );
    if (text.length > MIN_CONTENT_CHARS) proposals.push(text);
  }
  if (proposals.length > 0) return proposals;
  const fallback = await deps.llm.text(
    ctx,
    {
      template: 'tool_generate_content_fallback',
      variables: base,
      instruction: 'Write the content.',
      purpose: 'content_fallback',
    },
    signal,
  );
  return [fallback.length > 0 ? fallback : `[${input.task.description}]`];
}

/** The proposals best first; the original order when the ranking is unusable. */
async function rank(
  deps: ToolDeps,
  ctx: ToolContext,
  proposals: string[],
  signal: AbortSignal,
): Promise<string[]> {
  try {
    const { sorted_proposals } = await deps.llm.structured(
      ctx,
      {
        template: 'tool_sort_edit_proposals',
        variables: { proposals },
        instruction: 'Rank the proposals.',
        purpose: 'proposal_ranking',
        schema: ProposalRanking,
        schemaName: 'proposal_ranking',
      },
      signal,
    );
    const order = [...sorted_proposals].sort((a, b) => a.rank - b.rank).map((r) => r.proposal_number - 1);
    const valid =
      order.length === proposals.length &&
      new Set(order).size === order.length &&
      order.every((i) => i >= 0 && i < proposals.length);
    if (!valid) {
      ctx.warning('the proposal ranking was not a permutation; keeping the original order');
      return proposals;
    }
    return order.map((i) => proposals[i] ?? '');
  } catch (err) {
    if (!isBadOutput(err)) throw err;
    ctx.warning('the proposals could not be ranked; keeping the original order');
    return proposals;
  }
}
