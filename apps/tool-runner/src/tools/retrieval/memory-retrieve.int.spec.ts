import { connect, type NatsConnection } from '@nats-io/transport-node';
import { OpenAIChatModel } from '@novelrag/llm';
import { NatsMemory } from '@novelrag/resource-client';
import { FakeOpenAIServer, startNats, type NatsServerHandle } from '@novelrag/testkit';
import type { ToolHost } from '@novelrag/tool-kit';
import { hostBuiltinTools, invokeTool, startResourceService, toolInvocation } from '../../test/harness';
import type { StartedProcess } from '../../test/processes';

interface Doc {
  doc_id: string;
  uri: string;
  text: string;
  score?: number;
}

// memory_retrieve on the bus: a real NATS server and resource-service (built), the thread from the invocation.
describe('memory_retrieve over NATS', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let rs: StartedProcess;
  let host: ToolHost;
  let llm: FakeOpenAIServer;

  const recall = async (params: Record<string, unknown>, threadId?: string) => {
    const output = await invokeTool(
      nc,
      toolInvocation('memory_retrieve', params, threadId ? { threadId } : {}),
    );
    if (output.type !== 'result') throw new Error(`memory_retrieve failed: ${JSON.stringify(output)}`);
    return (JSON.parse(output.result) as { documents: Doc[] }).documents;
  };

  beforeAll(async () => {
    llm = await FakeOpenAIServer.start();
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    rs = await startResourceService(nc, nats.url);
    const model = new OpenAIChatModel({ baseURL: llm.baseURL, models: { default: 'fake' }, maxRetries: 0 });
    host = await hostBuiltinTools(nc, model, {
      instanceId: 'memory-test',
      random: () => 0,
      only: ['memory_retrieve'],
    });
    const memory = new NatsMemory(nc, { timeoutMs: 20_000 });
    await memory.storeInteraction({
      threadId: 'th-1',
      goalId: 'g-1',
      question: 'Who is 余归?',
      answer: 'A swordswoman of the Azure Sect.',
      facts: ['My heroine 余归 never lies'],
    });
    await memory.storeInteraction({ threadId: 'th-1', goalId: 'g-2', question: 'Weather?', answer: 'Rain.' });
    await memory.storeInteraction({
      threadId: 'th-2',
      goalId: 'g-3',
      question: 'Who is 余归?',
      answer: 'Other thread.',
    });
  }, 60_000);

  afterAll(async () => {
    await host?.stop(1_000);
    await rs?.stop();
    await nc?.close();
    await nats?.stop();
    await llm?.close();
  });

  it("returns the invocation thread's memories as documents with stable mem- ids and readable text", async () => {
    const documents = await recall({ query: '余归 Azure Sect' }, 'th-1');
    expect(documents[0]).toMatchObject({
      doc_id: expect.stringMatching(/^mem-[0-9a-f]{24}$/) as unknown,
      text: 'Q: Who is 余归?\nA: A swordswoman of the Azure Sect.',
      score: expect.any(Number) as unknown,
    });
    expect(documents[0]?.uri).toBe(`memory://th-1/${documents[0]?.doc_id}`);
    expect(documents.map((d) => d.text)).toContain('Stated by the user: My heroine 余归 never lies');
    expect(documents.some((d) => d.text.includes('Other thread'))).toBe(false);
    const again = await recall({ query: 'swordswoman', limit: 1 }, 'th-1');
    expect(again).toHaveLength(1);
    expect(again[0]?.doc_id).toBe(documents[0]?.doc_id);
    expect(llm.chatRequests()).toHaveLength(0);
  });

  it('recalls nothing for a goal without a thread, and rejects bad parameters', async () => {
    expect(await recall({ query: '余归' })).toEqual([]);
    await expect(
      invokeTool(nc, toolInvocation('memory_retrieve', { query: '余归', limit: 500 }, { threadId: 'th-1' })),
    ).resolves.toMatchObject({ type: 'error', error: { code: 'VALIDATION_FAILED' } });
  });
});
