import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ScriptedChatModel } from '@novelrag/agenturn/testing';
import { ApplyReply, FindReply, OperationsListReply, Subjects } from '@novelrag/contracts';
import { startNats, type NatsServerHandle } from '@novelrag/testkit';
import type { ToolHost } from '@novelrag/tool-kit';
import {
  SwitchableChatModel,
  applyOperations,
  hostBuiltinTools,
  invokeTool,
  resources,
  serveInteractions,
  startResourceService,
  toolInvocation,
} from '../../test/harness';
import type { StartedProcess } from '../../test/processes';
import { followUpScript, planningScript } from '../../test/write-scripts';

// A ResourceWriteTool call retried after its first runner died having written: the retry regenerates its content
// (another model call), but the resource-service answers its write from the first application. The tool must report
// what was applied then, not the content it just generated and never wrote.
describe('write tools retried after a write that an earlier attempt applied', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let rs: StartedProcess;
  let host: ToolHost;
  const model = new ScriptedChatModel([
    ...planningScript({ id: 'yu_gui', name: '余归', appearance: 'SECOND-ATTEMPT: a scar across her brow.' }),
    ...followUpScript('Created 余归.'),
  ]);

  const switchable = new SwitchableChatModel(model);

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    rs = await startResourceService(nc, nats.url);
    host = await hostBuiltinTools(nc, switchable, {
      instanceId: 'runner-retry',
      random: () => 0,
      only: ['ResourceWriteTool', 'ResourceRelationWriteTool'],
    });
  }, 60_000);

  afterAll(async () => {
    await host?.stop(1_000);
    await rs?.stop();
    await nc?.close();
    await nats?.stop();
  });

  it('ResourceWriteTool reports the operations the first attempt applied, and writes nothing again', async () => {
    const invocation = toolInvocation(
      'ResourceWriteTool',
      {
        operation_specification: 'Create the protagonist 余归 in /character',
        content_generation_tasks: [{ description: 'her appearance', content_key: 'appearance' }],
      },
      { goalId: 'goal-retry' },
    );
    await applyOperations(nc, [{ type: 'aspect.create', name: 'character', childrenKeys: [], metadata: {} }]);
    // The first attempt's write, with the key the tool derives for its main write.
    await resources(
      nc,
      Subjects.resources.apply,
      {
        operations: [
          {
            type: 'splice',
            location: { uri: '/character', childrenKey: null },
            start: 0,
            end: 0,
            data: [
              { id: 'yu_gui', properties: { name: '余归', appearance: 'FIRST-ATTEMPT: ash-grey eyes.' } },
            ],
          },
        ],
        groupId: invocation.invocationId,
        idempotencyKey: `${invocation.invocationId}-main`,
      },
      ApplyReply,
    );

    const interactions = serveInteractions(nc, 'goal-retry', () => ({ approved: true }));
    const output = await invokeTool(nc, { ...invocation, attempt: 2 });
    interactions.stop();
    expect(output).toMatchObject({ type: 'result', result: 'Created 余归.' });
    model.assertDone();

    // The summary was asked about the first attempt's operations, not the regenerated ones.
    const summaryPrompt = JSON.stringify(model.calls.at(-1)?.messages);
    expect(summaryPrompt).toContain('FIRST-ATTEMPT');
    expect(summaryPrompt).not.toContain('SECOND-ATTEMPT');
    // The repository holds the first attempt's element, once.
    const yu = await resources(nc, Subjects.resources.find, { uri: '/character/yu_gui' }, FindReply);
    expect(yu).toMatchObject({ element: { properties: { appearance: 'FIRST-ATTEMPT: ash-grey eyes.' } } });
    const history = await resources(nc, Subjects.resources.operations, { limit: 20 }, OperationsListReply);
    expect(history.entries.filter((e) => e.group === invocation.invocationId)).toHaveLength(1);
  });

  it('ResourceRelationWriteTool reports the relations the first attempt wrote and the lists they replaced', async () => {
    await applyOperations(nc, [
      {
        type: 'splice',
        location: { uri: '/character', childrenKey: null },
        start: 1,
        end: 1,
        data: [{ id: 'lin', properties: { name: 'Lin' } }],
      },
    ]);
    const invocation = toolInvocation(
      'ResourceRelationWriteTool',
      {
        source_resource_uri: '/character/yu_gui',
        target_resource_uri: '/character/lin',
        operation: 'add',
        relation_description: 'sworn sisters',
      },
      { goalId: 'goal-retry' },
    );
    // The first attempt's write (the lists were empty before it).
    await resources(
      nc,
      Subjects.resources.apply,
      {
        operations: [
          {
            type: 'relationship',
            source: '/character/yu_gui',
            target: '/character/lin',
            relations: ['FIRST sister'],
          },
          {
            type: 'relationship',
            source: '/character/lin',
            target: '/character/yu_gui',
            relations: ['FIRST sister'],
          },
        ],
        groupId: invocation.invocationId,
        idempotencyKey: `${invocation.invocationId}-relation`,
      },
      ApplyReply,
    );
    const retry = new ScriptedChatModel([
      { kind: 'structured', schemaName: 'updated_relations', respond: { relations: ['SECOND sister'] } },
      { kind: 'structured', schemaName: 'updated_relations', respond: { relations: ['SECOND sister'] } },
      { kind: 'text', purpose: 'summarize_relation_write', respond: 'They are sworn sisters.' },
    ]);
    switchable.current = retry;
    const output = await invokeTool(nc, { ...invocation, attempt: 2 });
    expect(output).toMatchObject({ type: 'result', result: 'They are sworn sisters.' });
    retry.assertDone();
    const summaryPrompt = JSON.stringify(retry.calls.at(-1)?.messages);
    expect(summaryPrompt).toContain('FIRST sister');
    expect(summaryPrompt).not.toContain('SECOND sister');
    const yu = await resources(nc, Subjects.resources.find, { uri: '/character/yu_gui' }, FindReply);
    expect(yu).toMatchObject({ element: { relationships: { '/character/lin': ['FIRST sister'] } } });
  });
});
