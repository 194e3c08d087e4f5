import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { NovelragApi } from './api-client';
import { guard } from './goal-tools';
import { jsonResult } from './results';
import { repositoryPath } from './resources';

interface GoalPage {
  goals?: { goalId: string; pendingInteraction?: unknown; request?: unknown; goal?: unknown }[];
}

/** Repository and human-in-the-loop tools: search, read, pending interactions, answer, undo/redo. */
export function registerRepositoryTools(server: McpServer, api: NovelragApi): void {
  server.registerTool(
    'search',
    {
      description: 'Hybrid (keyword + vector) search of the knowledge repository; exact names rank first.',
      inputSchema: {
        query: z.string().min(1).max(2_000),
        aspect: z.string().min(1).max(128).optional().describe('Only this aspect, e.g. character'),
        limit: z.number().int().min(1).max(100).optional(),
      },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args) => guard(async () => jsonResult(await api.call('POST', '/v1/resources/search', args))),
  );
  server.registerTool(
    'read_resource',
    {
      description:
        'Read a repository element or aspect: `/` lists aspects, `/character` one aspect, `/character/yugui` one element (or the same as novelrag://character/yugui).',
      inputSchema: { uri: z.string().min(1).max(2_048) },
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ uri }) =>
      guard(async () =>
        jsonResult(await api.call('GET', '/v1/resources', undefined, { uri: repositoryPath(uri) })),
      ),
  );
  registerInteractionTools(server, api);
  for (const verb of ['undo', 'redo'] as const)
    server.registerTool(
      verb,
      {
        description:
          verb === 'undo'
            ? 'Undo the newest group of changes to the repository.'
            : 'Redo the newest undone group of changes.',
        inputSchema: {},
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
      },
      async () => guard(async () => jsonResult(await api.call('POST', `/v1/${verb}`))),
    );
}

/** Human-in-the-loop tools: list the goals waiting for an answer, answer one. */
function registerInteractionTools(server: McpServer, api: NovelragApi): void {
  server.registerTool(
    'list_pending_interactions',
    {
      description: 'Goals waiting for a human answer, with the confirmation or question each one asks.',
      inputSchema: {},
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    async () =>
      guard(async () => {
        const page = (await api.call('GET', '/v1/goals', undefined, {
          status: 'waiting_for_input',
          limit: 100,
        })) as GoalPage;
        const pending = (page.goals ?? [])
          .filter((g) => g.pendingInteraction)
          .map((g) => ({
            goalId: g.goalId,
            request: g.request ?? g.goal,
            interaction: g.pendingInteraction,
          }));
        return jsonResult({ pending });
      }),
  );
  server.registerTool(
    'answer_interaction',
    {
      description:
        "Answer a goal's pending interaction: `approved` for a confirmation, `text` for a question.",
      inputSchema: {
        goalId: z.string().min(1).max(128),
        interactionId: z.string().min(1).max(128),
        approved: z.boolean().optional(),
        text: z.string().min(1).max(20_000).optional(),
      },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    async ({ goalId, interactionId, approved, text }) =>
      guard(async () =>
        jsonResult(
          await api.call(
            'POST',
            `/v1/goals/${encodeURIComponent(goalId)}/interactions/${encodeURIComponent(interactionId)}`,
            approved !== undefined ? { approved } : { text },
          ),
        ),
      ),
  );
}
