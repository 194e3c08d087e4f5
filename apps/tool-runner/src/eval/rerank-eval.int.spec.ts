import type { ElementContext } from '@novelrag/contracts';
import { OpenAIChatModel } from '@novelrag/llm';
import { FakeOpenAIServer } from '@novelrag/testkit';
import { docIdOf } from '../tools/retrieval/documents';
import { type EvalHit, overlapRanking, toolReranker } from './rerank-eval';

const hit = (uri: string, properties: Record<string, string>): EvalHit => {
  const id = uri.split('/').at(-1) ?? '';
  const element: ElementContext = {
    uri,
    id,
    aspect: uri.split('/')[1] ?? '',
    properties,
    relationships: {},
    childIds: {},
  };
  return { uri, element };
};
const HITS = [
  hit('/faction/azure_sect', { name: '青云宗', seat: 'Azure Peak' }),
  hit('/location/hanjiang_ferry', { name: '寒江渡', description: 'A ferry on the cold river' }),
  hit('/character/yu_gui', { name: '余归', description: 'A swordswoman who carries a broken sword' }),
];

// The evaluation's reranking goes through the real rerank tool: its prompt (en or zh), the model over HTTP through the
// SDK (faked at the HTTP boundary), its output checks; the scripted stand-in ranks what that prompt shows.
describe('retrieval evaluation: reranking through the rerank tool', () => {
  let llm: FakeOpenAIServer;
  const model = () =>
    new OpenAIChatModel({
      baseURL: llm.baseURL,
      models: { default: 'fake' },
      maxRetries: 0,
      validationRetries: 0,
    });

  beforeAll(async () => {
    llm = await FakeOpenAIServer.start();
  });
  afterEach(() => llm.reset());
  afterAll(async () => {
    await llm?.close();
  });

  it('orders the hits as the model ranks them, with the prompt in the question language', async () => {
    const ranking = [docIdOf('/character/yu_gui'), docIdOf('/faction/azure_sect')];
    llm.once({ schemaName: 'document_ranking' }, { json: { ranking } });
    const uris = await toolReranker(model())('谁拿着断剑？', 'zh', HITS);
    // Ranked first; the one the model left out keeps its place after them.
    expect(uris).toEqual(['/character/yu_gui', '/faction/azure_sect', '/location/hanjiang_ferry']);
    const [request] = llm.chatRequests();
    expect(JSON.stringify(request?.body)).toContain('## 问题');
  });

  it('rejects with the tool error when the model names a document it was not given', async () => {
    llm.once({ schemaName: 'document_ranking' }, { json: { ranking: ['doc_0000000000'] } });
    await expect(toolReranker(model())('Who carries a broken sword?', 'en', HITS)).rejects.toThrow(
      /rerank failed \[MODEL_OUTPUT_INVALID\]/,
    );
  });

  it('the scripted stand-in ranks the rendered prompt by word overlap with the question, en and zh', async () => {
    for (const [question, lang] of [
      ['Who carries a broken sword?', 'en'],
      ['余归在哪里？', 'zh'],
    ] as const) {
      llm.once({ schemaName: 'document_ranking' }, { json: { ranking: [] } });
      await toolReranker(model())(question, lang, HITS);
      const body = llm.chatRequests().at(-1)?.body as { messages: { content: string }[] };
      const answer = overlapRanking(body.messages.map((m) => m.content).join('\n'));
      expect(answer?.ranking[0]).toBe(docIdOf('/character/yu_gui'));
      expect(answer?.ranking).toHaveLength(3);
    }
    expect(overlapRanking('Summarise a write')).toBeUndefined();
  });
});
