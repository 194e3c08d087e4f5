import { toolError, toolResult } from '@novelrag/agenturn';
import { findOrNull } from '@novelrag/resource-client';
import { AspectName, ChildrenKey, type JsonObject, ResourceOperation } from '@novelrag/contracts';
import type { HostedTool } from '@novelrag/tool-kit';
import { z } from 'zod';
import { aspectView, json } from '../prompts/views';
import { recordedPlan } from './recorded-plan';
import { type ToolDeps, originOf, writeKey } from './tool-deps';

const Field = z.object({ name: z.string(), type: z.string(), description: z.string() });

/** The aspect "schema" the model drafts (structured output `aspect_metadata`); strict-mode friendly (no free maps). */
export const AspectMetadataDraft = z.object({
  description: z.string().min(1),
  children_keys: z.array(ChildrenKey),
  dependencies: z.array(z.string()),
  required_fields: z.array(Field),
  optional_fields: z.array(Field),
  extensibility: z.object({ description: z.string(), examples: z.array(z.string()) }),
  constraints: z.array(z.object({ name: z.string(), description: z.string() })),
  /** Further sections the model finds useful (name → text). */
  extra_sections: z.array(z.object({ name: z.string().min(1), content: z.string() })),
});
export type AspectMetadataDraft = z.infer<typeof AspectMetadataDraft>;

const RESERVED_SECTIONS = new Set(['name', 'description', 'children_keys', 'path', 'id', 'uri', 'aspect']);

function metadataOf(draft: AspectMetadataDraft): JsonObject {
  const metadata: JsonObject = {
    dependencies: draft.dependencies,
    structure: {
      required_fields: draft.required_fields,
      optional_fields: draft.optional_fields,
      extensibility: draft.extensibility,
    },
    constraints: draft.constraints,
  };
  for (const section of draft.extra_sections) {
    if (!RESERVED_SECTIONS.has(section.name) && !(section.name in metadata))
      metadata[section.name] = section.content;
  }
  return metadata;
}

/** Creates an aspect (a category such as `character`) with model-drafted metadata; undoable as one group. */
export function aspectCreateTool(deps: ToolDeps): HostedTool {
  return {
    name: 'AspectCreateTool',
    description:
      'Create a new aspect, i.e. a category of resources such as "character", "location" or "faction". The model ' +
      'drafts its metadata: a full description, children keys, dependencies, required and optional fields and constraints.',
    prerequisites: 'No aspect with this name exists yet (check "/" first).',
    outputDescription: 'JSON of the created aspect with its metadata.',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 128, description: 'Aspect name, e.g. character' },
        description: {
          type: 'array',
          items: { type: 'string' },
          minItems: 1,
          description: 'What the aspect is for, one point per item',
        },
      },
      required: ['name', 'description'],
      additionalProperties: false,
    },
    timeoutMs: 120_000,
    hints: { readOnly: false, destructive: false, idempotent: false },
    async call(ctx, params, signal) {
      const name = String(params['name']).trim();
      const description = (params['description'] as unknown[]).map(String);
      if (!AspectName.safeParse(name).success) {
        ctx.error(`invalid aspect name: ${name}`);
        return toolError(
          `"${name}" is not a valid aspect name (letters, digits, _, -, .)`,
          'VALIDATION_FAILED',
        );
      }
      // A retry may follow a runner that died after creating it: its keyed write is then answered, not repeated.
      const firstAttempt = (ctx.invocation.attempt ?? 1) === 1;
      if (firstAttempt && (await findOrNull(deps.resources, `/${name}`, signal))) {
        return toolError(`aspect ${name} already exists`, 'ALREADY_EXISTS');
      }
      // The operation an earlier attempt recorded (its runner died) is applied as it was, not drafted again.
      const operation = await recordedPlan(ctx, 'aspect-plan', ResourceOperation, async () => {
        ctx.info(`initializing metadata of aspect ${name}`);
        const draft = await deps.llm.structured(
          ctx,
          {
            template: 'tool_initialize_aspect_metadata',
            variables: { aspect_name: name, aspect_description: description },
            instruction: 'Write the aspect metadata.',
            purpose: 'aspect_metadata',
            schema: AspectMetadataDraft,
            schemaName: 'aspect_metadata',
          },
          signal,
        );
        const metadata = metadataOf(draft);
        ctx.debug(`aspect ${name} metadata: ${JSON.stringify(metadata)}`);
        return {
          type: 'aspect.create' as const,
          name,
          description: draft.description,
          childrenKeys: [...new Set(draft.children_keys)],
          metadata,
        };
      });
      const metadata = operation.type === 'aspect.create' ? operation.metadata : {};
      await deps.resources.apply(
        {
          operations: [operation],
          groupId: ctx.invocation.invocationId,
          idempotencyKey: writeKey(ctx, 'aspect'),
          origin: originOf(ctx, 'AspectCreateTool'),
        },
        signal,
      );
      const created = await deps.resources.find({ uri: `/${name}` }, signal);
      ctx.info(`aspect ${name} created`);
      return toolResult(
        json(created.kind === 'aspect' ? aspectView(created.aspect, created.rootIds) : { name, metadata }),
      );
    },
  };
}
