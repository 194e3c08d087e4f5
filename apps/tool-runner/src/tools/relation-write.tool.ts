import { toolError, toolResult } from '@novelrag/agenturn';
import { findOrNull } from '@novelrag/resource-client';
import { type FindReply, type JsonObject, type ResourceOperation, isResourceUri } from '@novelrag/contracts';
import type { HostedTool, ToolContext } from '@novelrag/tool-kit';
import { z } from 'zod';
import { findView, json } from '../prompts/views';
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

/**
 * Adds, updates or removes the relationship between two resources in both directions (only source → target when the
 * target is an aspect). Both directions are written in one atomic apply, so they are undone together.
 */
export function relationWriteTool(deps: ToolDeps): HostedTool {
  const updated = (
    ctx: ToolContext,
    from: Side,
    to: Side,
    operation: string,
    description: string,
    signal: AbortSignal,
  ): Promise<string[]> =>
    deps.llm
      .structured(
        ctx,
        {
          template: 'tool_get_updated_relations',
          variables: {
            source_resource: json(findView(from.found)),
            target_resource: json(findView(to.found)),
            existing_relation: relationsOf(from, to.uri),
            operation,
            relation_description: description,
          },
          instruction: 'Return the complete updated relation list.',
          purpose: 'updated_relations',
          schema: UpdatedRelations,
          schemaName: 'updated_relations',
        },
        signal,
      )
      .then((r) => r.relations);

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
      const sourceUri = String(params['source_resource_uri']);
      const targetUri = String(params['target_resource_uri']);
      const operation = String(params['operation']);
      const description = String(params['relation_description']);
      for (const uri of [sourceUri, targetUri]) {
        if (!isResourceUri(uri)) return toolError(`"${uri}" is not a valid resource URI`, 'INVALID_URI');
      }
      if (targetUri === '/') {
        ctx.error('the root cannot be a relationship target');
        return toolError('the root "/" cannot be a relationship target', 'VALIDATION_FAILED');
      }
      if (sourceUri === targetUri)
        return toolError('a resource cannot be related to itself', 'VALIDATION_FAILED');
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
      const source: Side = { uri: sourceUri, found: sourceFound };
      const target: Side = { uri: targetUri, found: targetFound };

      const forward = await updated(ctx, source, target, operation, description, signal);
      const both = targetFound.kind === 'element';
      const backward = both ? await updated(ctx, target, source, operation, description, signal) : null;
      const operations: ResourceOperation[] = [
        { type: 'relationship', source: sourceUri, target: targetUri, relations: forward },
      ];
      if (backward)
        operations.push({ type: 'relationship', source: targetUri, target: sourceUri, relations: backward });
      const reply = await deps.resources.apply(
        {
          operations,
          groupId: ctx.invocation.invocationId,
          idempotencyKey: writeKey(ctx, 'relation'),
          origin: originOf(ctx, 'ResourceRelationWriteTool'),
        },
        signal,
      );
      // A retried call (its first runner died after writing) read the lists its first attempt wrote and asked the
      // model again; the write was answered from the first application: report that one, old lists from its undo.
      const replayed = reply.replayed === true;
      const oldForward =
        (replayed && relationsIn(reply.undo, sourceUri, targetUri)) || relationsOf(source, targetUri);
      const oldBackward = both
        ? (replayed && relationsIn(reply.undo, targetUri, sourceUri)) || relationsOf(target, sourceUri)
        : null;
      const newForward = (replayed && relationsIn(reply.applied, sourceUri, targetUri)) || forward;
      const newBackward =
        backward && ((replayed && relationsIn(reply.applied, targetUri, sourceUri)) || backward);
      if (replayed) ctx.output('An earlier attempt of this call already wrote these relations.');
      ctx.output(`${sourceUri} → ${targetUri}: ${newForward.join('; ') || '(none)'}`);
      if (newBackward) ctx.output(`${targetUri} → ${sourceUri}: ${newBackward.join('; ') || '(none)'}`);

      const summary: JsonObject = {
        source_uri: sourceUri,
        target_uri: targetUri,
        operation,
        relation_description: description,
        old_source_to_target: oldForward,
        new_source_to_target: newForward,
        old_target_to_source: oldBackward,
        new_target_to_source: newBackward,
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
    },
  };
}
