import { type ToolOutput, toolError, toolResult } from '@novelrag/agenturn';
import { findOrNull } from '@novelrag/resource-client';
import { type FindReply, type JsonObject, ResourceOperation, isResourceUri } from '@novelrag/contracts';
import type { HostedTool, ToolContext } from '@novelrag/tool-kit';
import { z } from 'zod';
import { findView, json } from '../prompts/views';
import { recordedPlan } from './recorded-plan';
import { type ToolDeps, originOf, writeKey } from './tool-deps';

/** Structured output `updated_relations`: the complete new list from one resource to the other. */
export const UpdatedRelations = z.object({ relations: z.array(z.string().min(1).max(10_000)) });

interface Side {
  readonly uri: string;
  readonly found: FindReply;
}

/** The relation list a `relationship` operation among `operations` sets from `source` to `target`, if any. */
function relationsIn(
  operations: readonly ResourceOperation[] | undefined,
  source: string,
  target: string,
): string[] | undefined {
  for (const op of operations ?? [])
    if (op.type === 'relationship' && op.source === source && op.target === target) return [...op.relations];
  return undefined;
}

function relationsOf(side: Side, target: string): string[] {
  return side.found.kind === 'element' ? [...(side.found.element.relationships[target] ?? [])] : [];
}

/** The call's parameters. */
interface RelationRequest {
  readonly sourceUri: string;
  readonly targetUri: string;
  readonly operation: string;
  readonly description: string;
}

/** The relation lists before and after the write, in both directions (backward null when the target is an aspect). */
interface RelationChange {
  readonly replayed: boolean;
  readonly oldForward: string[];
  readonly newForward: string[];
  readonly oldBackward: string[] | null;
  readonly newBackward: string[] | null;
}

function requestOf(params: Readonly<Record<string, unknown>>): RelationRequest {
  return {
    sourceUri: String(params['source_resource_uri']),
    targetUri: String(params['target_resource_uri']),
    operation: String(params['operation']),
    description: String(params['relation_description']),
  };
}

/** Why the request cannot be carried out before anything is read, if it cannot. */
function invalidRequest(ctx: ToolContext, { sourceUri, targetUri }: RelationRequest): ToolOutput | undefined {
  for (const uri of [sourceUri, targetUri]) {
    if (!isResourceUri(uri)) return toolError(`"${uri}" is not a valid resource URI`, 'INVALID_URI');
  }
  if (targetUri === '/') {
    ctx.error('the root cannot be a relationship target');
    return toolError('the root "/" cannot be a relationship target', 'VALIDATION_FAILED');
  }
  if (sourceUri === targetUri)
    return toolError('a resource cannot be related to itself', 'VALIDATION_FAILED');
  return undefined;
}

/** Both resources as they are now: the source must be an element, the target must exist. */
async function loadSides(
  deps: ToolDeps,
  ctx: ToolContext,
  { sourceUri, targetUri }: RelationRequest,
  signal: AbortSignal,
): Promise<{ readonly source: Side; readonly target: Side } | ToolOutput> {
  const sourceFound = await findOrNull(deps.resources, sourceUri, signal);
  if (sourceFound?.kind !== 'element') {
    ctx.error(`source ${sourceUri} is not an existing element`);
    return toolError(`source ${sourceUri} is not an existing element`, 'NOT_FOUND');
  }
  const targetFound = await findOrNull(deps.resources, targetUri, signal);
  if (!targetFound) {
    ctx.error(`target ${targetUri} does not exist`);
    return toolError(`target ${targetUri} does not exist`, 'NOT_FOUND');
  }
  return { source: { uri: sourceUri, found: sourceFound }, target: { uri: targetUri, found: targetFound } };
}

/** The model's complete new relation list from one side to the other. */
function updatedRelations(
  deps: ToolDeps,
  ctx: ToolContext,
  request: RelationRequest,
  from: Side,
  to: Side,
  signal: AbortSignal,
): Promise<string[]> {
  return deps.llm
    .structured(
      ctx,
      {
        template: 'tool_get_updated_relations',
        variables: {
          source_resource: json(findView(from.found)),
          target_resource: json(findView(to.found)),
          existing_relation: relationsOf(from, to.uri),
          operation: request.operation,
          relation_description: request.description,
        },
        instruction: 'Return the complete updated relation list.',
        purpose: 'updated_relations',
        schema: UpdatedRelations,
        schemaName: 'updated_relations',
      },
      signal,
    )
    .then((r) => r.relations);
}

/** The operations that write the model's new lists in both directions. */
async function relationOperations(
  deps: ToolDeps,
  ctx: ToolContext,
  request: RelationRequest,
  source: Side,
  target: Side,
  signal: AbortSignal,
): Promise<ResourceOperation[]> {
  const { sourceUri, targetUri } = request;
  const forward = await updatedRelations(deps, ctx, request, source, target, signal);
  const backward =
    target.found.kind === 'element'
      ? await updatedRelations(deps, ctx, request, target, source, signal)
      : null;
  const operations: ResourceOperation[] = [
    { type: 'relationship', source: sourceUri, target: targetUri, relations: forward },
  ];
  if (backward)
    operations.push({ type: 'relationship', source: targetUri, target: sourceUri, relations: backward });
  return operations;
}

const RelationPlan = z.array(ResourceOperation).min(1);

/**
 * Writes both directions in one atomic apply: the lists an earlier attempt of this call recorded (its runner died),
 * else the model's new lists, recorded before they are applied.
 */
async function writeRelations(
  deps: ToolDeps,
  ctx: ToolContext,
  request: RelationRequest,
  source: Side,
  target: Side,
  signal: AbortSignal,
): Promise<RelationChange> {
  const { sourceUri, targetUri } = request;
  const operations = await recordedPlan(ctx, 'relation-plan', RelationPlan, () =>
    relationOperations(deps, ctx, request, source, target, signal),
  );
  const forward = relationsIn(operations, sourceUri, targetUri) ?? [];
  const both = target.found.kind === 'element';
  const backward = both ? (relationsIn(operations, targetUri, sourceUri) ?? []) : null;
  const reply = await deps.resources.apply(
    {
      operations,
      groupId: ctx.invocation.invocationId,
      idempotencyKey: writeKey(ctx, 'relation'),
      origin: originOf(ctx, 'ResourceRelationWriteTool'),
    },
    signal,
  );
  // A retried call (its first runner died after writing) applies the lists its first attempt recorded, and the write is
  // answered from the first application (also when no plan was recorded): report that one, old lists from its undo.
  const replayed = reply.replayed === true;
  return {
    replayed,
    oldForward: (replayed && relationsIn(reply.undo, sourceUri, targetUri)) || relationsOf(source, targetUri),
    newForward: (replayed && relationsIn(reply.applied, sourceUri, targetUri)) || forward,
    oldBackward: both
      ? (replayed && relationsIn(reply.undo, targetUri, sourceUri)) || relationsOf(target, sourceUri)
      : null,
    newBackward: backward && ((replayed && relationsIn(reply.applied, targetUri, sourceUri)) || backward),
  };
}

/** Shows the change, then returns the model's summary of it (its JSON when the model wrote nothing). */
async function reportChange(
  deps: ToolDeps,
  ctx: ToolContext,
  request: RelationRequest,
  change: RelationChange,
  signal: AbortSignal,
): Promise<ToolOutput> {
  const { sourceUri, targetUri } = request;
  if (change.replayed) ctx.output('An earlier attempt of this call already wrote these relations.');
  ctx.output(`${sourceUri} → ${targetUri}: ${change.newForward.join('; ') || '(none)'}`);
  if (change.newBackward)
    ctx.output(`${targetUri} → ${sourceUri}: ${change.newBackward.join('; ') || '(none)'}`);
  const summary: JsonObject = {
    source_uri: sourceUri,
    target_uri: targetUri,
    operation: request.operation,
    relation_description: request.description,
    old_source_to_target: change.oldForward,
    new_source_to_target: change.newForward,
    old_target_to_source: change.oldBackward,
    new_target_to_source: change.newBackward,
  };
  const text = await deps.llm.text(
    ctx,
    {
      template: 'tool_summarize_relation_write',
      variables: summary,
      instruction: 'Write the summary.',
      purpose: 'summarize_relation_write',
    },
    signal,
  );
  return toolResult(text || json(summary));
}

/**
 * Adds, updates or removes the relationship between two resources in both directions (only source → target when the
 * target is an aspect). Both directions are written in one atomic apply, so they are undone together.
 */
export function relationWriteTool(deps: ToolDeps): HostedTool {
  return {
    name: 'ResourceRelationWriteTool',
    description:
      'Add, update or remove the relationship between two resources. The relationship is written on both sides, each ' +
      'from its own point of view (only on the source when the target is an aspect).',
    prerequisites:
      'Both resources exist (create a missing aspect with AspectCreateTool and missing elements with ResourceWriteTool ' +
      'first); the source is an element.',
    outputDescription: 'A short summary of the relationship change in both directions.',
    inputSchema: {
      type: 'object',
      properties: {
        source_resource_uri: { type: 'string', minLength: 1 },
        target_resource_uri: { type: 'string', minLength: 1 },
        operation: { type: 'string', minLength: 1, description: 'add, update or remove' },
        relation_description: { type: 'string', minLength: 1, description: 'The relationship, in words' },
      },
      required: ['source_resource_uri', 'target_resource_uri', 'operation', 'relation_description'],
      additionalProperties: false,
    },
    timeoutMs: 180_000,
    hints: { readOnly: false, destructive: false, idempotent: false },
    async call(ctx, params, signal) {
      const request = requestOf(params);
      const invalid = invalidRequest(ctx, request);
      if (invalid) return invalid;
      const sides = await loadSides(deps, ctx, request, signal);
      if ('type' in sides) return sides; // a tool error
      const change = await writeRelations(deps, ctx, request, sides.source, sides.target, signal);
      return reportChange(deps, ctx, request, change, signal);
    },
  };
}
