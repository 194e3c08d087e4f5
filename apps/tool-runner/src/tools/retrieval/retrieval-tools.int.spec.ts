import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { JsonObject } from '@novelrag/contracts';
import { OpenAIChatModel } from '@novelrag/llm';
import { FakeOpenAIServer, startNats, type NatsServerHandle } from '@novelrag/testkit';
import type { ToolHost } from '@novelrag/tool-kit';
import {
  applyOperations,
  hostBuiltinTools,
  invokeTool,
  startResourceService,
  toolInvocation,
} from '../../test/harness';
import type { StartedProcess } from '../../test/processes';
import { docIdOf } from './documents';

interface Doc {
  doc_id: string;
  uri: string;
  text: string;
  score?: number;
}

const RETRIEVAL_TOOLS = ['vector_retrieve', 'rerank', 'grade', 'query_rewrite'];
const element = (id: string, properties: JsonObject) => ({ id, properties });

/** The result of a tool call, parsed; fails the test on an error output. */
async function run<T>(nc: NatsConnection, tool: string, params: Record<string, unknown>, lang?: string) {
  const output = await invokeTool(nc, toolInvocation(tool, params, lang ? { lang } : {}));
  if (output.type !== 'result') throw new Error(`${tool} failed: ${JSON.stringify(output)}`);
  return JSON.parse(output.result) as T;
}

/** The system prompt of the n-th chat request the fake model received. */
function systemPrompt(server: FakeOpenAIServer, n: number): string {
  const body = server.chatRequests()[n]?.body as { messages: { role: string; content: string }[] };
  return body.messages.find((m) => m.role === 'system')?.content ?? '';
}

// The retrieval tools on the bus: a real NATS server and resource-service, the real OpenAI SDK against the fake server.
describe('retrieval tools over NATS (fake OpenAI server)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let rs: StartedProcess;
  let host: ToolHost;
  let llm: FakeOpenAIServer;

  beforeAll(async () => {
    llm = await FakeOpenAIServer.start();
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    rs = await startResourceService(nc, nats.url);
    const model = new OpenAIChatModel({
      baseURL: llm.baseURL,
      models: { default: 'fake' },
      maxRetries: 0,
      validationRetries: 1,
    });
    host = await hostBuiltinTools(nc, model, {
      instanceId: 'retrieval-test',
      random: () => 0,
      only: RETRIEVAL_TOOLS,
    });
    await applyOperations(nc, [
      { type: 'aspect.create', name: 'character', childrenKeys: [], metadata: {} },
      { type: 'aspect.create', name: 'faction', childrenKeys: [], metadata: {} },
      {
        type: 'splice',
        location: { uri: '/character', childrenKey: null },
        start: 0,
        end: 0,
        data: [
          element('yu_gui', {
            name: '余归',
            description: '青云宗的剑客，性格沉默而固执。',
            traits: ['loyal', 'stubborn'],
            origin: { home_town: 'Mistvale', family: 'none left' },
          }),
          element('shen_he', { name: 'Shen He', description: 'A merchant of the southern markets.' }),
        ],
      },
      {
        type: 'splice',
        location: { uri: '/faction', childrenKey: null },
        start: 0,
        end: 0,
        data: [element('azure_sect', { name: '青云宗', seat: 'the north council' })],
      },
    ]);
  }, 60_000);

  afterAll(async () => {
    await host?.stop(1_000);
    await rs?.stop();
    await nc?.close();
    await nats?.stop();
    await llm?.close();
  });

  beforeEach(() => llm.reset());
  afterEach(() => llm.assertDone());

  it('vector_retrieve returns citable documents: a doc_id stable across calls, the URI and readable text', async () => {
    const first = await run<{ documents: Doc[] }>(nc, 'vector_retrieve', { query: '余归', top_k: 3 });
    const yuGui = first.documents.find((d) => d.uri === '/character/yu_gui');
    expect(yuGui).toMatchObject({ doc_id: docIdOf('/character/yu_gui'), score: expect.any(Number) });
    expect(yuGui?.text).toContain('name: 余归');
    expect(yuGui?.text).toContain('description: 青云宗的剑客，性格沉默而固执。');
    expect(yuGui?.text).toContain('traits: loyal, stubborn');
    expect(yuGui?.text).toContain('origin: \n  home town: Mistvale');
    expect(yuGui?.text).not.toMatch(/[{}"]/);
    const again = await run<{ documents: Doc[] }>(nc, 'vector_retrieve', {
      query: 'swordswoman 剑客',
      top_k: 5,
    });
    expect(again.documents.find((d) => d.uri === '/character/yu_gui')?.doc_id).toBe(yuGui?.doc_id);
    expect(new Set(again.documents.map((d) => d.doc_id)).size).toBe(again.documents.length);
    expect(llm.chatRequests()).toHaveLength(0);
  });

  it('rerank orders the documents as the model ranks them and keeps top_k', async () => {
    const { documents } = await run<{ documents: Doc[] }>(nc, 'vector_retrieve', {
      query: '青云宗',
      top_k: 3,
    });
    expect(documents.length).toBeGreaterThanOrEqual(2);
    const reversed = [...documents].reverse().map((d) => d.doc_id);
    llm.once({ kind: 'structured', schemaName: 'document_ranking' }, { json: { ranking: reversed } });
    const ranked = await run<{ documents: Doc[] }>(nc, 'rerank', {
      question: 'Who leads 青云宗?',
      documents,
      top_k: 2,
    });
    expect(ranked.documents.map((d) => d.doc_id)).toEqual(reversed.slice(0, 2));
    expect(ranked.documents[0]).toEqual(documents.find((d) => d.doc_id === reversed[0]));
    const prompt = systemPrompt(llm, 0);
    for (const d of documents) expect(prompt).toContain(`### ${d.doc_id} (${d.uri})`);
    expect(llm.chatRequests()[0]?.body).toMatchObject({ model: 'fake' });
  });

  it('rerank answers a coded error when the model ranks a document it was not given', async () => {
    const documents: Doc[] = [{ doc_id: 'doc_a', uri: '/character/yu_gui', text: 'name: 余归' }];
    llm.once({ schemaName: 'document_ranking' }, { json: { ranking: ['doc_zzz', 'doc_a'] } });
    await expect(
      invokeTool(nc, toolInvocation('rerank', { question: 'q', documents })),
    ).resolves.toMatchObject({ type: 'error', error: { code: 'MODEL_OUTPUT_INVALID' } });
  });

  it('grade drops the documents the model grades irrelevant and reports them', async () => {
    const documents: Doc[] = [
      { doc_id: 'doc_a', uri: '/character/yu_gui', text: 'name: 余归' },
      { doc_id: 'doc_b', uri: '/character/shen_he', text: 'name: Shen He' },
      { doc_id: 'doc_c', uri: '/faction/azure_sect', text: 'name: 青云宗' },
    ];
    llm.once(
      { schemaName: 'document_grades' },
      {
        json: {
          grades: [
            { doc_id: 'doc_a', relevant: true, reason: 'is her' },
            { doc_id: 'doc_b', relevant: false, reason: 'a merchant, unrelated' },
          ],
        },
      },
    );
    const graded = await run<{ documents: Doc[]; dropped: unknown[] }>(nc, 'grade', {
      question: 'Who is 余归?',
      documents,
    });
    expect(graded.documents.map((d) => d.doc_id)).toEqual(['doc_a', 'doc_c']);
    expect(graded.dropped).toEqual([
      { doc_id: 'doc_b', uri: '/character/shen_he', reason: 'a merchant, unrelated' },
    ]);
  });

  it('grade answers MODEL_OUTPUT_INVALID, not a crash, when the model output stays unparseable', async () => {
    llm.once({ schemaName: 'document_grades' }, { text: 'all of them look fine' });
    llm.once({ schemaName: 'document_grades' }, { json: { grades: [{ doc_id: 'doc_a', relevant: 'yes' }] } });
    const documents: Doc[] = [{ doc_id: 'doc_a', uri: '/character/yu_gui', text: 'name: 余归' }];
    await expect(
      invokeTool(nc, toolInvocation('grade', { question: 'q', documents })),
    ).resolves.toMatchObject({
      type: 'error',
      error: { code: 'MODEL_OUTPUT_INVALID' },
    });
    await expect(
      invokeTool(nc, toolInvocation('grade', { question: 'q', documents: [{ doc_id: 'x' }] })),
    ).resolves.toMatchObject({ type: 'error', error: { code: 'VALIDATION_FAILED' } });
  });

  it('query_rewrite returns the new query, with the prompt in the invocation language', async () => {
    llm.once({ schemaName: 'query_rewrite' }, { json: { query: '余归 盟友 同伴', reason: '加入了同义词' } });
    const rewrite = await run<{ query: string; reason: string }>(
      nc,
      'query_rewrite',
      { question: '余归的盟友是谁？', tried_queries: ['余归的盟友'] },
      'zh',
    );
    expect(rewrite).toEqual({ query: '余归 盟友 同伴', reason: '加入了同义词' });
    const prompt = systemPrompt(llm, 0);
    expect(prompt).toContain('已经试过的检索词');
    expect(prompt).toContain('- 余归的盟友');
  });
});
