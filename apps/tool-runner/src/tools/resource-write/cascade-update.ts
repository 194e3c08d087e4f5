import { isAgenturnError } from '@novelrag/agenturn';
import { findOrNull } from '@novelrag/resource-client';
import { ResourceOperation, isResourceUri } from '@novelrag/contracts';
import type { ToolContext } from '@novelrag/tool-kit';
import { z } from 'zod';
import { findView, json } from '../../prompts/views';
import { recordedPlan } from '../recorded-plan';
import { type ToolDeps, originOf, writeKey } from '../tool-deps';
import { type ChildrenKeysOf, singleOperationSchema } from './operation-schema';
import { RelationUpdate, RelationUpdateUris, RequiredUpdates, type RequiredUpdate } from './schemas';

export interface WriteRecord {
  readonly spec: string;
  /** JSON of the applied operations and of their inverses (the previous state). */
  readonly operations: string;
  readonly undoOperations: string;
  readonly context: string;
  readonly keysOf: ChildrenKeysOf;
}

export interface CascadeResult {
  readonly perspectiveUpdates: string[];
  readonly relationUpdates: string[];
}

const TOOL = 'ResourceWriteTool';

/** Failures a cascade step survives with a warning (the main write stands): bad model output, a refused write. */
function isSkippable(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return (
    isAgenturnError(err, 'MODEL_OUTPUT_INVALID') ||
    ['NOT_FOUND', 'ALREADY_EXISTS', 'VALIDATION_FAILED', 'INVALID_URI', 'CONFLICT'].includes(String(code))
  );
}

/**
 * One hop of consequences of a write: the same event recorded in the content of each existing resource it involves
 * (perspective updates), and relationships between pairs of resources (relation updates). Each update is written in the
 * invocation's undo group with its own idempotency key; a failing update is skipped with a warning.
 */
export async function cascadeUpdates(
  deps: ToolDeps,
  ctx: ToolContext,
  write: WriteRecord,
  signal: AbortSignal,
): Promise<CascadeResult> {
  const base = {
    step_description: write.spec,
    operations: write.operations,
    undo_operations: write.undoOperations,
    context: write.context,
  };
  // Each decision is recorded before it is acted on: a retry after a runner crash carries out the same updates.
  const required = await recordedPlan(ctx, 'cascade-plan', RequiredUpdates, () =>
    deps.llm.structured(
      ctx,
      {
        template: 'tool_discover_required_updates',
        variables: base,
        instruction: 'List the required updates.',
        purpose: 'required_updates',
        schema: RequiredUpdates,
        schemaName: 'required_updates',
      },
      signal,
    ),
  );
  const perspectiveUpdates: string[] = [];
  for (const [i, update] of required.perspective_updates.entries()) {
    try {
      const operation = await recordedPlan(ctx, `cascade-p${i}`, ResourceOperation.nullable(), () =>
        deps.llm.structured(
          ctx,
          {
            template: 'tool_build_perspective_update_operation',
            variables: { ...base, update },
            instruction: 'Write the operation.',
            purpose: 'perspective_update_operation',
            schema: singleOperationSchema(write.keysOf),
            schemaName: 'perspective_update_operation',
          },
          signal,
        ),
      );
      if (!operation) continue;
      await apply(deps, ctx, [operation], `p${i}`, signal);
      perspectiveUpdates.push(update.content);
    } catch (err) {
      if (!isSkippable(err)) throw err;
      ctx.warning(`perspective update skipped (${update.reason}): ${(err as Error).message}`);
    }
  }
  const relationUpdates: string[] = [];
  for (const [i, update] of required.relation_updates.entries()) {
    try {
      const applied = await relationUpdate(deps, ctx, update, base, i, signal);
      if (applied) relationUpdates.push(update.content);
    } catch (err) {
      if (!isSkippable(err)) throw err;
      ctx.warning(`relation update skipped (${update.reason}): ${(err as Error).message}`);
    }
  }
  return { perspectiveUpdates, relationUpdates };
}

async function relationUpdate(
  deps: ToolDeps,
  ctx: ToolContext,
  update: RequiredUpdate,
  base: Record<string, unknown>,
  index: number,
  signal: AbortSignal,
): Promise<boolean> {
  const operations = await recordedPlan(ctx, `cascade-r${index}`, z.array(ResourceOperation), () =>
    relationUpdateOperations(deps, ctx, update, base, signal),
  );
  if (operations.length === 0) return false;
  await apply(deps, ctx, operations, `r${index}`, signal);
  return true;
}

/** The operations of one relation update (none when it is skipped). */
async function relationUpdateOperations(
  deps: ToolDeps,
  ctx: ToolContext,
  update: RequiredUpdate,
  base: Record<string, unknown>,
  signal: AbortSignal,
): Promise<ResourceOperation[]> {
  const uris = await deps.llm.structured(
    ctx,
    {
      template: 'tool_parse_relation_update_uris',
      variables: { update, context: base['context'] },
      instruction: 'Extract the two URIs.',
      purpose: 'relation_update_uris',
      schema: RelationUpdateUris,
      schemaName: 'relation_update_uris',
    },
    signal,
  );
  const { source_uri: source, target_uri: target } = uris;
  if (!source || !target || !isResourceUri(source) || !isResourceUri(target) || source === target) {
    ctx.warning(`relation update skipped: ${uris.error ?? 'no usable pair of URIs'} (${update.content})`);
    return [];
  }
  if (source === '/' || target === '/') return [];
  const [from, to] = await Promise.all([
    findOrNull(deps.resources, source, signal),
    findOrNull(deps.resources, target, signal),
  ]);
  if (!from || !to) {
    ctx.warning(`relation update skipped: ${!from ? source : target} does not exist`);
    return [];
  }
  const existing = (found: typeof from, other: string) =>
    found.kind === 'element' ? (found.element.relationships[other] ?? []) : [];
  const lists = await deps.llm.structured(
    ctx,
    {
      template: 'tool_build_relation_update',
      variables: {
        ...base,
        update,
        source_resource: json(findView(from)),
        target_resource: json(findView(to)),
        source_to_target_existing: existing(from, target),
        target_to_source_existing: existing(to, source),
      },
      instruction: 'Write both relation lists.',
      purpose: 'relation_update',
      schema: RelationUpdate,
      schemaName: 'relation_update',
    },
    signal,
  );
  const operations: ResourceOperation[] = [];
  if (from.kind === 'element') {
    operations.push({ type: 'relationship', source, target, relations: lists.source_to_target_relations });
  }
  if (to.kind === 'element') {
    operations.push({
      type: 'relationship',
      source: target,
      target: source,
      relations: lists.target_to_source_relations,
    });
  }
  return operations;
}

function apply(
  deps: ToolDeps,
  ctx: ToolContext,
  operations: ResourceOperation[],
  part: string,
  signal: AbortSignal,
) {
  return deps.resources.apply(
    {
      operations,
      groupId: ctx.invocation.invocationId,
      idempotencyKey: writeKey(ctx, part),
      origin: originOf(ctx, TOOL),
    },
    signal,
  );
}
