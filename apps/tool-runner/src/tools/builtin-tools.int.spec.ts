import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ModelOutputError } from '@novelrag/agenturn';
import { ScriptedChatModel, type ScriptEntry } from '@novelrag/agenturn/testing';
import {
  ApplyReply,
  BacklogListReply,
  type ElementInput,
  FindReply,
  OperationsListReply,
  Subjects,
  UndoRedoReply,
} from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import type { ToolHost } from '@novelrag/tool-kit';
import {
  SwitchableChatModel,
  hostBuiltinTools,
  invokeTool,
  resources,
  serveInteractions,
  startResourceService,
  toolInvocation,
} from '../test/harness';
import type { StartedProcess } from '../test/processes';

const perspectives = {
  perspectives: [1, 2, 3, 4, 5].map((i) => ({
    id: `p${i}`,
    description: `angle ${i}`,
    rationale: `why ${i}`,
  })),
};

/** The model calls of one ResourceWriteTool run up to (and including) building the operations. */
function writeUntilOperations(operations: unknown[]): ScriptEntry[] {
  return [
    { kind: 'structured', schemaName: 'content_perspectives', respond: perspectives },
    { kind: 'text', purpose: 'content_from_perspective', respond: 'A swordswoman with ash-grey eyes.' },
    { kind: 'text', purpose: 'content_from_perspective', respond: 'Quiet, stubborn, never forgets a debt.' },
    {
      kind: 'structured',
      schemaName: 'proposal_ranking',
      respond: {
        sorted_proposals: [
          { rank: 1, proposal_number: 2 },
          { rank: 2, proposal_number: 1 },
        ],
      },
    },
    { kind: 'structured', schemaName: 'resource_operations', respond: { operations } },
  ];
}

/** A root-list insert of one element (seed data written directly, not through a tool). */
const insertAt = (aspectUri: string, at: number, element: ElementInput) => ({
  type: 'splice' as const,
  location: { uri: aspectUri, childrenKey: null },
  start: at,
  end: at,
  data: [element],
});

const NO_OP_FIELDS = { data_json: null, children_key: null, start: null, end: null, elements_json: null };

describe('built-in tools against a real resource-service (scripted model)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let rs: StartedProcess;
  let host: ToolHost;
  const model = new SwitchableChatModel(new ScriptedChatModel([]));
  const script = (entries: ScriptEntry[]) => {
    const scripted = new ScriptedChatModel(entries);
    model.current = scripted;
    return scripted;
  };
  const find = (uri: string) => resources(nc, Subjects.resources.find, { uri }, FindReply);

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    rs = await startResourceService(nc, nats.url);
    host = await hostBuiltinTools(nc, model, { instanceId: 'runner-test', random: () => 0 });
    // A place that already exists, for the cascade to update.
    await resources(
      nc,
      Subjects.resources.apply,
      {
        operations: [
          { type: 'aspect.create', name: 'location', childrenKeys: [], metadata: {} },
          insertAt('/location', 0, { id: 'azure_peak', properties: { name: 'Azure Peak' } }),
        ],
      },
      ApplyReply,
    );
  }, 60_000);

  afterAll(async () => {
    await host?.stop(1_000);
    await rs?.stop();
    await nc?.close();
    await nats?.stop();
  });

  it('AspectCreateTool creates an aspect with drafted metadata, undoable, and replays a repeated invocation', async () => {
    const scripted = script([
      {
        kind: 'structured',
        schemaName: 'aspect_metadata',
        respond: {
          description: 'People of the story',
          children_keys: ['skills'],
          dependencies: ['cne'],
          required_fields: [{ name: 'name', type: 'string', description: 'full name' }],
          optional_fields: [],
          extensibility: { description: 'free', examples: ['hobby'] },
          constraints: [{ name: 'unique_name', description: 'names are unique' }],
          extra_sections: [{ name: 'naming', content: 'pinyin ids' }],
        },
      },
    ]);
    const invocation = toolInvocation('AspectCreateTool', { name: 'character', description: ['people'] });
    const output = await invokeTool(nc, invocation);
    expect(output.type).toBe('result');
    const created = JSON.parse(output.type === 'result' ? output.result : '{}') as Record<string, unknown>;
    expect(created).toMatchObject({ name: 'character', children_keys: ['skills'], naming: 'pinyin ids' });
    scripted.assertDone();
    expect(scripted.calls[0]?.messages[0]?.content).toContain('character');

    await expect(invokeTool(nc, { ...invocation, attempt: 2 })).resolves.toMatchObject({ replayed: true });
    await expect(
      invokeTool(nc, toolInvocation('AspectCreateTool', { name: 'character', description: ['x'] })),
    ).resolves.toMatchObject({ type: 'error', error: { code: 'ALREADY_EXISTS' } });
    const history = await resources(nc, Subjects.resources.operations, { limit: 1 }, OperationsListReply);
    expect(history.entries[0]).toMatchObject({ stack: 'undo', group: invocation.invocationId });
  });

  it('ResourceWriteTool creates a character with a nested child after confirmation, cascades, and undoes as one group', async () => {
    const interactions = serveInteractions(nc, 'goal-write', () => ({ approved: true }));
    const scripted = script([
      ...writeUntilOperations([
        {
          ...NO_OP_FIELDS,
          type: 'splice',
          uri: '/character',
          start: 0,
          end: 0,
          elements_json: JSON.stringify([
            {
              id: 'yu_gui',
              name: '余归',
              appearance: 'Quiet, stubborn, never forgets a debt.',
              skills: [{ id: 'ash_sword', name: 'Ash Sword Art' }],
            },
          ]),
        },
      ]),
      {
        kind: 'structured',
        schemaName: 'required_updates',
        respond: {
          perspective_updates: [
            { reason: 'she trained there', content: '/location/azure_peak: 余归 trained here' },
          ],
          relation_updates: [{ reason: 'home', content: '/character/yu_gui lives at /location/azure_peak' }],
        },
      },
      {
        kind: 'structured',
        schemaName: 'perspective_update_operation',
        respond: {
          operation: {
            ...NO_OP_FIELDS,
            type: 'property',
            uri: '/location/azure_peak',
            data_json: JSON.stringify({ history: '余归(/character/yu_gui) trained here.' }),
          },
        },
      },
      {
        kind: 'structured',
        schemaName: 'relation_update_uris',
        respond: { source_uri: '/character/yu_gui', target_uri: '/location/azure_peak', error: null },
      },
      {
        kind: 'structured',
        schemaName: 'relation_update',
        respond: { source_to_target_relations: ['lives at'], target_to_source_relations: ['home of'] },
      },
      {
        kind: 'structured',
        schemaName: 'backlog_items',
        respond: {
          backlog_items: [
            {
              type: 'dependency',
              priority: 'high',
              description: 'Her sect is mentioned but missing',
              context_reference: null,
              search_guidance: 'Azure Sect',
              creation_guidance: null,
              aspect_hint: 'faction',
              rationale: null,
              target_resources: [],
            },
          ],
        },
      },
      { kind: 'text', purpose: 'summarize_resource_write', respond: 'Created 余归 with her Ash Sword Art.' },
    ]);
    const invocation = toolInvocation(
      'ResourceWriteTool',
      {
        operation_specification: 'Create the protagonist 余归 in /character with her signature skill',
        content_generation_tasks: [{ description: 'her appearance', content_key: 'appearance' }],
      },
      {
        goalId: 'goal-write',
        workspace: {
          segments: [
            { uri: '/character', excludedProperties: [] },
            { uri: '/location/azure_peak', excludedProperties: [] },
          ],
          excludedUris: [],
        },
      },
    );
    const output = await invokeTool(nc, invocation);
    interactions.stop();
    expect(output).toMatchObject({ type: 'result', result: 'Created 余归 with her Ash Sword Art.' });
    scripted.assertDone();
    expect(interactions.requests).toHaveLength(1);
    expect(interactions.requests[0]).toMatchObject({
      kind: 'confirm',
      invocationId: invocation.invocationId,
    });
    // The planner's workspace reached the content prompts.
    expect(scripted.calls[0]?.messages[0]?.content).toContain('Azure Peak');

    const yu = await find('/character/yu_gui');
    expect(yu).toMatchObject({
      kind: 'element',
      element: {
        properties: { name: '余归', appearance: 'Quiet, stubborn, never forgets a debt.' },
        relationships: { '/location/azure_peak': ['lives at'] },
        children: { skills: [{ id: 'ash_sword', uri: '/character/yu_gui/ash_sword' }] },
      },
    });
    await expect(find('/character/yu_gui/ash_sword')).resolves.toMatchObject({ kind: 'element' });
    await expect(find('/location/azure_peak')).resolves.toMatchObject({
      element: {
        properties: { history: '余归(/character/yu_gui) trained here.' },
        relationships: { '/character/yu_gui': ['home of'] },
      },
    });
    const backlog = await resources(nc, Subjects.resources.backlogList, {}, BacklogListReply);
    expect(backlog.entries).toEqual([
      expect.objectContaining({ priority: 8, content: expect.objectContaining({ aspect_hint: 'faction' }) }),
    ]);

    // Every write of the invocation is one undo group: one undo removes all of it.
    const undo = await resources(nc, Subjects.resources.undo, {}, UndoRedoReply);
    expect(undo).toMatchObject({ status: 'applied', action: 'undo' });
    expect(undo.status === 'applied' && undo.count).toBe(4);
    await expect(
      resources(nc, Subjects.resources.find, { uri: '/character/yu_gui' }, FindReply),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const peak = await find('/location/azure_peak');
    expect(peak.kind === 'element' && peak.element.properties).toEqual({ name: 'Azure Peak' });
    expect(peak.kind === 'element' && peak.element.relationships).toEqual({});
    // Bring the write back for the next tests.
    await expect(resources(nc, Subjects.resources.redo, {}, UndoRedoReply)).resolves.toMatchObject({
      status: 'applied',
    });
  });

  it('ResourceWriteTool changes nothing when the confirmation is declined', async () => {
    const interactions = serveInteractions(nc, 'goal-declined', () => ({ approved: false }));
    const scripted = script(
      writeUntilOperations([
        {
          ...NO_OP_FIELDS,
          type: 'splice',
          uri: '/character',
          start: 1,
          end: 1,
          elements_json: JSON.stringify([{ id: 'lin_wu', name: '林雾' }]),
        },
      ]),
    );
    const before = await resources(nc, Subjects.resources.operations, { limit: 100 }, OperationsListReply);
    const output = await invokeTool(
      nc,
      toolInvocation(
        'ResourceWriteTool',
        { operation_specification: 'Create 林雾', content_generation_tasks: [{ description: 'her look' }] },
        { goalId: 'goal-declined' },
      ),
    );
    interactions.stop();
    expect(output.type).toBe('result');
    expect(output.type === 'result' && output.result).toContain('declined');
    scripted.assertDone();
    expect(interactions.requests).toHaveLength(1);
    await expect(
      resources(nc, Subjects.resources.find, { uri: '/character/lin_wu' }, FindReply),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    const after = await resources(nc, Subjects.resources.operations, { limit: 100 }, OperationsListReply);
    expect(after.entries).toEqual(before.entries);
  });

  it('ResourceWriteTool reports operations the model cannot get valid as MODEL_OUTPUT_INVALID, with multi-line errors', async () => {
    const scripted = script([
      ...writeUntilOperations([]).slice(0, -1),
      {
        kind: 'structured',
        schemaName: 'resource_operations',
        respond: () => {
          throw new ModelOutputError({
            issues: [{ path: 'operations.0', message: 'data_json is not valid JSON\nline two' }],
            rawOutputLength: 42,
            attempts: 3,
            purpose: 'resource_operations',
          });
        },
      },
    ]);
    const output = await invokeTool(
      nc,
      toolInvocation('ResourceWriteTool', {
        operation_specification: 'Give 余归 an age',
        content_generation_tasks: [{ description: 'her age' }],
      }),
    );
    expect(output).toMatchObject({ type: 'error', error: { code: 'MODEL_OUTPUT_INVALID' } });
    expect(output.type === 'error' && output.error.message).toContain('data_json is not valid JSON');
    scripted.assertDone();
  });

  it('ResourceRelationWriteTool writes both directions in one undo group', async () => {
    const scripted = script([
      { kind: 'structured', schemaName: 'updated_relations', respond: { relations: ['rival of'] } },
      { kind: 'structured', schemaName: 'updated_relations', respond: { relations: ['rival of'] } },
      { kind: 'text', purpose: 'summarize_relation_write', respond: 'They are now rivals.' },
    ]);
    await resources(
      nc,
      Subjects.resources.apply,
      {
        operations: [insertAt('/character', 1, { id: 'shen_he', properties: { name: '沈鹤' } })],
      },
      ApplyReply,
    );
    const output = await invokeTool(
      nc,
      toolInvocation('ResourceRelationWriteTool', {
        source_resource_uri: '/character/yu_gui',
        target_resource_uri: '/character/shen_he',
        operation: 'add',
        relation_description: 'rivals since the tournament',
      }),
    );
    expect(output).toMatchObject({ type: 'result', result: 'They are now rivals.' });
    scripted.assertDone();
    const shen = await find('/character/shen_he');
    expect(shen.kind === 'element' && shen.element.relationships).toEqual({
      '/character/yu_gui': ['rival of'],
    });
    const undo = await resources(nc, Subjects.resources.undo, {}, UndoRedoReply);
    expect(undo.status === 'applied' && undo.count).toBe(2);
    const yu = await find('/character/yu_gui');
    expect(yu.kind === 'element' && yu.element.relationships['/character/shen_he']).toBeUndefined();

    await expect(
      invokeTool(
        nc,
        toolInvocation('ResourceRelationWriteTool', {
          source_resource_uri: '/character/yu_gui',
          target_resource_uri: '/character/nobody',
          operation: 'add',
          relation_description: 'x',
        }),
      ),
    ).resolves.toMatchObject({ type: 'error', error: { code: 'NOT_FOUND' } });
  });

  it('ResourceFetchTool and ResourceSearchTool read without the model', async () => {
    script([]);
    const root = await invokeTool(nc, toolInvocation('ResourceFetchTool', { uri: '/' }));
    expect(root.type === 'result' && JSON.parse(root.result)).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'character' })]),
    );
    const aspect = await invokeTool(nc, toolInvocation('ResourceFetchTool', { uri: '/character' }));
    expect(aspect.type === 'result' && JSON.parse(aspect.result)).toMatchObject({
      name: 'character',
      root_elements: [{ id: 'yu_gui' }, { id: 'shen_he' }],
    });
    const element = await invokeTool(nc, toolInvocation('ResourceFetchTool', { uri: '/character/yu_gui' }));
    expect(element.type === 'result' && JSON.parse(element.result)).toMatchObject({
      id: 'yu_gui',
      uri: '/character/yu_gui',
      name: '余归',
      skills: [{ id: 'ash_sword' }],
    });
    await expect(
      invokeTool(nc, toolInvocation('ResourceFetchTool', { uri: '/character/ghost' })),
    ).resolves.toMatchObject({ type: 'error', error: { code: 'NOT_FOUND' } });
    const search = await invokeTool(nc, toolInvocation('ResourceSearchTool', { query: '余归', top_k: 3 }));
    expect(search.type === 'result' && JSON.parse(search.result)[0]).toMatchObject({
      uri: '/character/yu_gui',
    });
    await expect(invokeTool(nc, toolInvocation('ResourceSearchTool', { top_k: 3 }))).resolves.toMatchObject({
      type: 'error',
      error: { code: 'VALIDATION_FAILED' },
    });
  });
});
