import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { NovelragApi } from './api-client';
import { type ToolExtra, followGoal } from './follow';
import { errorResult, jsonResult } from './results';

/** Default bound on waiting for a goal in one tool call; past it the call answers "still running". */
export const DEFAULT_WAIT_MS = 10 * 60_000;

const goalRoute = (id: string) => `/v1/goals/${encodeURIComponent(id)}`;
const waitMs = z
  .number()
  .int()
  .min(1_000)
  .max(60 * 60_000)
  .optional()
  .describe(`How long this call waits for the goal, in ms (default ${DEFAULT_WAIT_MS})`);
const threadId = z.string().min(1).max(128).optional().describe('Conversation thread to continue');
const lang = z.string().min(2).max(35).optional().describe('Language of the request, e.g. en or zh');

/** Whether the goal's record shows this interaction as pending (a replayed question may have been answered). */
async function stillPending(api: NovelragApi, goalId: string, interactionId: string): Promise<boolean> {
  const goal = (await api.call('GET', goalRoute(goalId))) as {
    pendingInteraction?: { interactionId?: string };
  };
  return goal.pendingInteraction?.interactionId === interactionId;
}

/**
 * Follows a goal and turns how it ended into the tool result: the goal record, or the question it waits on (with the
 * trace position to follow from once answered). A fresh goal stops at its first question; a resumed follow only at
 * one its record still shows pending.
 */
async function waitFor(
  api: NovelragApi,
  goalId: string,
  extra: ToolExtra,
  options: { wait: number | undefined; after?: string | undefined; fresh: boolean },
): Promise<CallToolResult> {
  const end = await followGoal(api, goalId, extra, {
    waitMs: options.wait ?? DEFAULT_WAIT_MS,
    after: options.after,
    stopOnInteraction: (iid) => (options.fresh ? Promise.resolve(true) : stillPending(api, goalId, iid)),
  });
  if (end.kind === 'interaction')
    return jsonResult({
      goalId,
      status: 'waiting_for_input',
      pendingInteraction: end.event.interaction,
      resumeAfter: end.eventId,
      next: 'answer with answer_interaction, then call follow_goal with `after` = resumeAfter',
    });
  const goal = (await api.call('GET', goalRoute(goalId))) as Record<string, unknown>;
  if (end.kind === 'timeout')
    return jsonResult({ goalId, status: goal['status'], next: 'still running: call follow_goal' });
  const outcome = goal['outcome'] as { response?: string } | undefined;
  return jsonResult(
    { goalId, status: goal['status'], outcome: goal['outcome'] },
    outcome?.response ? `${String(goal['status'])}: ${outcome.response}` : undefined,
  );
}

/** Submits a goal over REST; with `wait`, follows it to its end with progress notifications. */
async function submit(
  api: NovelragApi,
  body: Record<string, unknown>,
  wait: boolean,
  waitLimit: number | undefined,
  extra: ToolExtra,
): Promise<CallToolResult> {
  const accepted = (await api.call('POST', '/v1/goals', body)) as { goalId: string; status: string };
  if (!wait) return jsonResult(accepted);
  return waitFor(api, accepted.goalId, extra, { wait: waitLimit, fresh: true });
}

/** The goal tools: submit (and wait or follow), ask the RAG agent, follow, show, cancel. */
export function registerGoalTools(server: McpServer, api: NovelragApi): void {
  server.registerTool(
    'submit_goal',
    {
      description:
        'Submit a request to NovelRAG (it plans and runs tools on the knowledge repository). By default waits for the goal to end, sending progress notifications; cancelling the call cancels the goal. Stops early when the goal asks a question (see answer_interaction).',
      inputSchema: {
        request: z
          .string()
          .min(1)
          .max(20_000)
          .optional()
          .describe('What you want done, in natural language (translated into a goal)'),
        goal: z
          .string()
          .min(1)
          .max(20_000)
          .optional()
          .describe('A goal statement used as is, instead of `request`'),
        threadId,
        lang,
        wait: z.boolean().optional().describe('Wait for the goal to end (default true)'),
        waitMs,
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async (args, extra) =>
      guard(() =>
        submit(
          api,
          { request: args.request, goal: args.goal, threadId: args.threadId, lang: args.lang },
          args.wait ?? true,
          args.waitMs,
          extra,
        ),
      ),
  );
  server.registerTool(
    'ask',
    {
      description:
        'Ask a question answered from the knowledge repository with citations (the RAG agent); waits for the answer with progress notifications.',
      inputSchema: { question: z.string().min(1).max(20_000), threadId, lang, waitMs },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (args, extra) =>
      guard(() =>
        submit(
          api,
          { request: args.question, agent: 'rag', threadId: args.threadId, lang: args.lang },
          true,
          args.waitMs,
          extra,
        ),
      ),
  );
  server.registerTool(
    'follow_goal',
    {
      description:
        "Follow a goal's progress until it ends (or asks a question); progress notifications carry each step.",
      inputSchema: {
        goalId: z.string().min(1).max(128),
        after: z
          .string()
          .min(1)
          .max(64)
          .optional()
          .describe('Follow after this trace position (`resumeAfter` of a previous answer)'),
        waitMs,
      },
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    async ({ goalId, after, waitMs: wait }, extra) =>
      guard(() => waitFor(api, goalId, extra, { wait, after, fresh: false })),
  );
  registerGoalRecordTools(server, api);
}

/** Read and cancel one goal. */
function registerGoalRecordTools(server: McpServer, api: NovelragApi): void {
  server.registerTool(
    'get_goal',
    {
      description: 'The stored record of a goal: status, steps, pending interaction, outcome.',
      inputSchema: { goalId: z.string().min(1).max(128) },
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    async ({ goalId }) => guard(async () => jsonResult(await api.call('GET', goalRoute(goalId)))),
  );
  server.registerTool(
    'cancel_goal',
    {
      description: 'Cancel a goal: a queued one at once, a running one at its next safe point.',
      inputSchema: { goalId: z.string().min(1).max(128) },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    },
    async ({ goalId }) =>
      guard(async () => jsonResult(await api.call('POST', `${goalRoute(goalId)}/cancel`))),
  );
}

/** Runs a tool body; an API failure becomes an MCP error result naming its code (the client's model can read it). */
export async function guard(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (err) {
    return errorResult(err);
  }
}
