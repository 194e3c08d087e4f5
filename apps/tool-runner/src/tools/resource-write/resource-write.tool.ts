import { isAgenturnError, type ToolOutput, toolError, toolResult } from '@novelrag/agenturn';
import type { ApplyReply, ResourceOperation, SegmentData } from '@novelrag/contracts';
import type { HostedTool, ToolContext } from '@novelrag/tool-kit';
import { json } from '../../prompts/views';
import { loadWorkspace, renderForContent, renderForOperations } from '../../prompts/workspace-context';
import { type ToolDeps, originOf, writeKey } from '../tool-deps';
import { discoverBacklog } from './backlog-discovery';
import { type WriteRecord, cascadeUpdates } from './cascade-update';
import { type ContentResult, type ContentTask, generateContent } from './content-generation';
import { type ChildrenKeysOf, resourceOperationsSchema } from './operation-schema';
import { readOutcome, readPlan, saveOutcome, savePlan } from './write-plan';

const NAME = 'ResourceWriteTool';

const CONFIRM = {
  en: (n: number, ops: string) => `Apply ${n} operation(s) to the repository?\n${ops}`,
  zh: (n: number, ops: string) => `是否将以下 ${n} 个操作应用到知识库？\n${ops}`,
};

function confirmText(ctx: ToolContext, operations: ResourceOperation[]): string {
  const zh = ctx.invocation.lang?.toLowerCase().startsWith('zh') ?? false;
  return (zh ? CONFIRM.zh : CONFIRM.en)(operations.length, json(operations));
}

async function childrenKeysOf(deps: ToolDeps, signal: AbortSignal): Promise<ChildrenKeysOf> {
  const root = await deps.resources.find({ uri: '/' }, signal);
  const keys = new Map<string, readonly string[]>();
  if (root.kind === 'root') for (const aspect of root.aspects) keys.set(aspect.name, aspect.childrenKeys);
  return (uri) => keys.get(uri.split('/')[1] ?? '') ?? [];
}

const INPUT_SCHEMA = {
  type: 'object',
  properties: {
    operation_specification: {
      type: 'string',
      minLength: 1,
      description: 'What to write and where (exact URIs of the aspect or parent element), in full',
    },
    content_generation_tasks: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        properties: {
          description: { type: 'string', minLength: 1, description: 'The content to generate' },
          content_key: { type: 'string', description: 'The property it is for, if any' },
        },
        required: ['description'],
        additionalProperties: false,
      },
    },
  },
  required: ['operation_specification', 'content_generation_tasks'],
  additionalProperties: false,
};

/** Asks the model for the operations that carry out `spec` with the generated contents (a tool error if invalid). */
async function buildOperations(
  deps: ToolDeps,
  ctx: ToolContext,
  spec: string,
  contents: readonly ContentResult[],
  segments: readonly SegmentData[],
  keysOf: ChildrenKeysOf,
  signal: AbortSignal,
): Promise<ResourceOperation[] | ToolOutput> {
  let operations: ResourceOperation[];
  try {
    operations = await deps.llm.structured(
      ctx,
      {
        template: 'tool_build_operation',
        variables: {
          action: spec,
          content_results: contents,
          context: renderForOperations(segments, ctx.invocation.lang),
        },
        instruction: 'Write the operations.',
        purpose: 'resource_operations',
        schema: resourceOperationsSchema(keysOf),
        schemaName: 'resource_operations',
      },
      signal,
    );
  } catch (err) {
    if (!isAgenturnError(err, 'MODEL_OUTPUT_INVALID')) throw err;
    return toolError(`operation validation failed: ${err.message}`, 'MODEL_OUTPUT_INVALID');
  }
  if (operations.length === 0) return toolError('the model produced no operations', 'MODEL_OUTPUT_INVALID');
  return operations;
}

/** Applies the confirmed operations in the invocation's undo group; returns the reply and what was written. */
async function applyOperations(
  deps: ToolDeps,
  ctx: ToolContext,
  operations: ResourceOperation[],
  signal: AbortSignal,
): Promise<{ readonly applied: ApplyReply; readonly written: ResourceOperation[] }> {
  const applied = await deps.resources.apply(
    {
      operations,
      groupId: ctx.invocation.invocationId,
      idempotencyKey: writeKey(ctx, 'main'),
      origin: originOf(ctx, NAME),
    },
    signal,
  );
  // A retried invocation (its first runner died after writing) regenerated its content: what counts is what the
  // first attempt applied, which the resource-service remembered with the write's key.
  const written = applied.replayed ? (applied.applied ?? operations) : operations;
  ctx.output(
    applied.replayed
      ? `An earlier attempt of this call already applied ${written.length} operation(s): ${applied.changedUris.join(', ')}`
      : `Applied ${written.length} operation(s): ${applied.changedUris.join(', ')}`,
  );
  return { applied, written };
}

/** Records the consequences (cascade updates, backlog) of a write, then returns the model's summary of it all. */
async function followUp(
  deps: ToolDeps,
  ctx: ToolContext,
  write: WriteRecord,
  changedUris: readonly string[],
  writtenCount: number,
  signal: AbortSignal,
): Promise<ToolOutput> {
  const cascade = await cascadeUpdates(deps, ctx, write, signal);
  const backlogCount = await discoverBacklog(deps, ctx, write, signal);
  const summary = await deps.llm.text(
    ctx,
    {
      template: 'tool_summarize_resource_write',
      variables: {
        operation_specification: write.spec,
        applied_operations: write.operations,
        undo_operations: write.undoOperations,
        perspective_updates_applied: cascade.perspectiveUpdates,
        relation_updates_applied: cascade.relationUpdates,
        backlog_count: backlogCount,
      },
      instruction: 'Write the summary.',
      purpose: 'summarize_resource_write',
    },
    signal,
  );
  return toolResult(
    summary ||
      `Applied ${writtenCount} operation(s) to ${changedUris.join(', ')}; ` +
        `${cascade.perspectiveUpdates.length} perspective and ${cascade.relationUpdates.length} relation updates; ` +
        `${backlogCount} backlog item(s).`,
  );
}

/** Generates the contents, then the operations that write them (a tool error when either fails). */
async function planOperations(
  deps: ToolDeps,
  ctx: ToolContext,
  spec: string,
  tasks: ContentTask[],
  keysOf: ChildrenKeysOf,
  signal: AbortSignal,
): Promise<ResourceOperation[] | ToolOutput> {
  const segments = await loadWorkspace(deps.resources, ctx, signal);
  ctx.info(`generating content for ${tasks.length} task(s)`);
  const contents = await generateContent(
    deps,
    ctx,
    spec,
    tasks,
    renderForContent(segments, ctx.invocation.lang),
    signal,
  );
  if (contents.length === 0) return toolError('no content could be generated for the tasks', 'TOOL_FAILED');
  return buildOperations(deps, ctx, spec, contents, segments, keysOf, signal);
}

function declined(ctx: ToolContext): ToolOutput {
  ctx.output('The write was declined; nothing was changed.');
  return toolResult('The user declined the operations; nothing was changed.');
}

/**
 * The operations to apply, confirmed by the human: those an earlier attempt of this call recorded (a retry after its
 * runner died never regenerates them, nor asks again once they were answered), or new ones. Every decision is recorded
 * (see WritePlan) before it is acted on. Null when the human declined; a tool error when no operations came out.
 */
async function confirmedOperations(
  deps: ToolDeps,
  ctx: ToolContext,
  params: Readonly<Record<string, unknown>>,
  keysOf: ChildrenKeysOf,
  signal: AbortSignal,
): Promise<ResourceOperation[] | ToolOutput | null> {
  const earlier = await readPlan(ctx);
  if (earlier?.state === 'declined') return null;
  if (earlier?.state === 'confirmed') {
    ctx.info('an earlier attempt of this call had the operations confirmed; applying exactly those');
    return earlier.operations;
  }
  let operations: ResourceOperation[];
  if (earlier) {
    operations = earlier.operations; // generated and shown before, never answered: the same question again
  } else {
    const spec = String(params['operation_specification']).trim();
    const planned = await planOperations(
      deps,
      ctx,
      spec,
      params['content_generation_tasks'] as ContentTask[],
      keysOf,
      signal,
    );
    if (!Array.isArray(planned)) return planned; // a tool error
    operations = planned;
    await savePlan(ctx, { state: 'proposed', operations });
  }
  ctx.debug(`operations: ${JSON.stringify(operations)}`);
  const approved = await ctx.confirm(confirmText(ctx, operations));
  await savePlan(ctx, { state: approved ? 'confirmed' : 'declined', operations });
  return approved ? operations : null;
}

/**
 * The follow-up of a write that stands: its failure is reported in a result that says the write was applied (an error
 * would tell the planner that nothing happened), unless the call itself was stopped.
 */
async function followUpOfStandingWrite(
  deps: ToolDeps,
  ctx: ToolContext,
  write: WriteRecord,
  applied: ApplyReply,
  writtenCount: number,
  signal: AbortSignal,
): Promise<ToolOutput> {
  let output: ToolOutput;
  try {
    output = await followUp(deps, ctx, write, applied.changedUris, writtenCount, signal);
  } catch (err) {
    if (signal.aborted) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    ctx.warning(`the follow-up of the applied write failed: ${reason}`);
    output = toolResult(
      `Applied ${writtenCount} operation(s) to ${applied.changedUris.join(', ')}; the write stands, but its ` +
        `follow-up (perspective and relation updates, backlog, summary) failed: ${reason}`,
    );
  }
  if (output.type === 'result') await saveOutcome(ctx, output.result);
  return output;
}

/** The tool's call: content, operations, confirmation, apply, follow-up. */
async function writeResources(
  deps: ToolDeps,
  ctx: ToolContext,
  params: Readonly<Record<string, unknown>>,
  signal: AbortSignal,
): Promise<ToolOutput> {
  const spec = String(params['operation_specification']).trim();
  if (spec === '') return toolError('operation_specification is empty', 'VALIDATION_FAILED');
  const finished = await readOutcome(ctx);
  if (finished !== undefined) {
    ctx.output('An earlier attempt of this call finished it; reporting its result.');
    return toolResult(finished);
  }
  const keysOf = await childrenKeysOf(deps, signal);
  const operations = await confirmedOperations(deps, ctx, params, keysOf, signal);
  if (operations === null) return declined(ctx);
  if (!Array.isArray(operations)) return operations; // a tool error
  const { applied, written } = await applyOperations(deps, ctx, operations, signal);
  const after = await loadWorkspace(deps.resources, ctx, signal, applied.changedUris);
  const write: WriteRecord = {
    spec,
    operations: json(written),
    undoOperations: json(applied.undo),
    context: renderForContent(after, ctx.invocation.lang),
    keysOf,
  };
  return followUpOfStandingWrite(deps, ctx, write, applied, written.length, signal);
}

/**
 * Creates or edits elements: generates content for each task (perspectives, proposals, ranking, weighted choice),
 * builds and validates the operations, asks the human to confirm, applies them atomically, then records the
 * consequences (perspective and relation updates) and future work (backlog), all in ONE undo group keyed by the
 * invocation. The result is a summary written by the model. Declining changes nothing and is not an error.
 */
export function resourceWriteTool(deps: ToolDeps): HostedTool {
  return {
    name: NAME,
    description:
      'Create, edit or delete elements (resources) of existing aspects: new characters, places, events, nested ' +
      'children, changed properties. Generates the content for each task, shows the operations for confirmation, ' +
      'applies them, and updates the directly affected resources and their relationships.',
    prerequisites:
      'The target aspect exists (AspectCreateTool) and the resources being edited are loaded in the context, with ' +
      'their exact URIs.',
    outputDescription:
      'A summary of what was written, what it replaced, the follow-up updates and backlog items.',
    inputSchema: INPUT_SCHEMA,
    timeoutMs: 600_000,
    hints: { readOnly: false, destructive: true, idempotent: false },
    call: (ctx, params, signal) => writeResources(deps, ctx, params, signal),
  };
}
