import type { JsonObject } from '@novelrag/contracts';
import type { ToolContext } from '@novelrag/tool-kit';
import { recordedPlan } from '../recorded-plan';
import { type ToolDeps, originOf } from '../tool-deps';
import type { WriteRecord } from './cascade-update';
import { BACKLOG_PRIORITY, BacklogItems, type BacklogItem } from './schemas';

function contentOf(item: BacklogItem): JsonObject {
  const content: JsonObject = { type: item.type, description: item.description };
  const optional = [
    'context_reference',
    'search_guidance',
    'creation_guidance',
    'aspect_hint',
    'rationale',
  ] as const;
  for (const key of optional) {
    const value = item[key];
    if (value) content[key] = value;
  }
  if (item.target_resources.length > 0) content['target_resources'] = item.target_resources;
  return content;
}

/**
 * Future work the write reveals (missing dependencies, threads to develop), stored in the resource-service backlog that
 * the autonomous backlog decider reads. Identical items merge there. Returns how many were stored.
 */
export async function discoverBacklog(
  deps: ToolDeps,
  ctx: ToolContext,
  write: WriteRecord,
  signal: AbortSignal,
): Promise<number> {
  // Recorded before it is stored: a retry stores the same items again, which merge with those already stored.
  const { backlog_items } = await recordedPlan(ctx, 'backlog-plan', BacklogItems, () =>
    deps.llm.structured(
      ctx,
      {
        template: 'tool_discover_backlog',
        variables: {
          step_description: write.spec,
          operations: write.operations,
          undo_operations: write.undoOperations,
          context: write.context,
        },
        instruction: 'List the backlog items.',
        purpose: 'backlog_items',
        schema: BacklogItems,
        schemaName: 'backlog_items',
      },
      signal,
    ),
  );
  let stored = 0;
  for (const item of backlog_items) {
    try {
      await deps.resources.backlogAdd(
        {
          content: contentOf(item),
          priority: BACKLOG_PRIORITY[item.priority],
          origin: originOf(ctx, 'ResourceWriteTool'),
        },
        signal,
      );
      stored += 1;
    } catch (err) {
      ctx.warning(`backlog item not stored: ${(err as Error).message}`);
    }
  }
  if (backlog_items.length > 0) {
    ctx.output(`Backlog: ${backlog_items.map((i) => `[${i.priority}] ${i.description}`).join('; ')}`);
  }
  return stored;
}
