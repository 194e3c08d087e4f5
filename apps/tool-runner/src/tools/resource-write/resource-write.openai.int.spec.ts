import { connect, type NatsConnection } from '@nats-io/transport-node';
import { FindReply, Subjects } from '@novelrag/contracts';
import { OpenAIChatModel } from '@novelrag/llm';
import { FakeOpenAIServer, startNats, type NatsServerHandle } from '@novelrag/testkit';
import type { ToolHost } from '@novelrag/tool-kit';
import {
  applyOperations,
  hostBuiltinTools,
  invokeTool,
  resources,
  serveInteractions,
  startResourceService,
  toolInvocation,
} from '../../test/harness';
import type { StartedProcess } from '../../test/processes';
import { openObjects } from '../../test/strict-schema';

type Json = Record<string, unknown>;

const element = (id: string, name: string) => JSON.stringify([{ id, name, look: 'ash-grey eyes' }]);
const splice = (elements: string) => ({
  type: 'splice',
  uri: '/character',
  children_key: null,
  start: 0,
  end: 0,
  data_json: null,
  elements_json: elements,
});

describe('ResourceWriteTool through the real OpenAI SDK (model faked at the HTTP boundary)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let rs: StartedProcess;
  let fake: FakeOpenAIServer;
  let host: ToolHost;

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    rs = await startResourceService(nc, nats.url);
    fake = await FakeOpenAIServer.start();
    const model = new OpenAIChatModel({
      baseURL: fake.baseURL,
      apiKey: 'k',
      models: { default: 'fake-model' },
    });
    host = await hostBuiltinTools(nc, model, {
      instanceId: 'openai-test',
      random: () => 0.99,
      only: ['ResourceWriteTool'],
    });
    await applyOperations(nc, [{ type: 'aspect.create', name: 'character', childrenKeys: [], metadata: {} }]);
  }, 60_000);

  afterAll(async () => {
    await host?.stop(1_000);
    await fake?.close();
    await rs?.stop();
    await nc?.close();
    await nats?.stop();
  });

  it('writes in Chinese with strict schemas, feeding invalid operations back to the model until they validate', async () => {
    fake
      .once(
        { schemaName: 'content_perspectives' },
        {
          json: {
            perspectives: [1, 2, 3].map((i) => ({ id: `p${i}`, description: `角度${i}`, rationale: '因为' })),
          },
        },
      )
      .once({ kind: 'text' }, { text: '她有一双灰烬般的眼睛，沉默而固执。' })
      .once({ kind: 'text' }, { text: '她从不忘记任何一笔恩情与债务。' })
      .once(
        { schemaName: 'proposal_ranking' },
        {
          json: {
            sorted_proposals: [
              { rank: 1, proposal_number: 1 },
              { rank: 2, proposal_number: 2 },
            ],
          },
        },
      )
      .once({ schemaName: 'resource_operations' }, { json: { operations: [splice('[{"name": "no id"}]')] } })
      .once(
        { schemaName: 'resource_operations' },
        { json: { operations: [splice(element('yu_gui', '余归'))] } },
      )
      .once({ schemaName: 'required_updates' }, { json: { perspective_updates: [], relation_updates: [] } })
      .once({ schemaName: 'backlog_items' }, { json: { backlog_items: [] } })
      .once({ kind: 'text' }, { text: '创建了角色余归。' });
    const interactions = serveInteractions(nc, 'goal-zh', () => ({ approved: true }));
    const output = await invokeTool(
      nc,
      toolInvocation(
        'ResourceWriteTool',
        {
          operation_specification: '在 /character 中创建主角余归',
          content_generation_tasks: [{ description: '她的外貌', content_key: 'look' }],
        },
        { goalId: 'goal-zh', lang: 'zh' },
      ),
    );
    interactions.stop();
    expect(output).toMatchObject({ type: 'result', result: '创建了角色余归。' });
    fake.assertDone();
    expect(interactions.requests[0]).toMatchObject({
      kind: 'confirm',
      message: expect.stringContaining('是否将以下 1 个操作'),
    });

    const chats = fake.chatRequests();
    // Chinese templates and the content directive reached the model.
    const system =
      (chats[0]?.body as { messages: { role: string; content: string }[] }).messages[0]?.content ?? '';
    expect(system).toContain('Chinese');
    expect(system).toContain('创作视角');
    for (const request of chats.filter((r) => r.kind === 'structured')) {
      const format = (request.body as Json)['response_format'] as {
        json_schema: { schema: unknown; strict?: boolean };
      };
      expect({ schema: request.schemaName, open: openObjects(format.json_schema.schema) }).toEqual({
        schema: request.schemaName,
        open: [],
      });
    }
    const operationCalls = chats.filter((r) => r.schemaName === 'resource_operations');
    expect(operationCalls).toHaveLength(2);
    const retryMessages = (operationCalls[1]?.body as { messages: { content: string }[] }).messages;
    expect(retryMessages.map((m) => m.content).join('\n')).toContain('id is required');

    await expect(
      resources(nc, Subjects.resources.find, { uri: '/character/yu_gui' }, FindReply),
    ).resolves.toMatchObject({ element: { properties: { name: '余归', look: 'ash-grey eyes' } } });
  });
});
