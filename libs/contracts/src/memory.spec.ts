import {
  MAX_MEMORY_FACTS,
  MAX_MEMORY_LIMIT,
  MAX_MEMORY_QUESTION_CHARS,
  MemoryItem,
  MemoryRetrieveRequest,
  MemoryStoreRequest,
  MemorySummaryReply,
} from './index';

describe('memory contracts', () => {
  const store = {
    schemaVersion: 1,
    threadId: 't-1',
    goalId: 'g-1',
    question: 'Who is 余归?',
    answer: 'A swordsman of the Azure Sect.',
  };

  it('accepts an exchange with a summary and facts, and trims the question', () => {
    const parsed = MemoryStoreRequest.parse({
      ...store,
      question: '  Who?  ',
      summary: 's',
      facts: ['I like 剑'],
    });
    expect(parsed.question).toBe('Who?');
    expect(parsed.facts).toEqual(['I like 剑']);
  });

  it('bounds sizes, counts and the limit, and requires the schema version', () => {
    const bad = [
      { ...store, question: 'x'.repeat(MAX_MEMORY_QUESTION_CHARS + 1) },
      { ...store, question: '   ' },
      { ...store, facts: Array.from({ length: MAX_MEMORY_FACTS + 1 }, (_, i) => `fact ${i}`) },
      { ...store, facts: [''] },
      { ...store, schemaVersion: 2 },
      { ...store, threadId: 'a.b' },
      { ...store, extra: true },
    ];
    for (const input of bad) expect(MemoryStoreRequest.safeParse(input).success).toBe(false);
    const retrieve = { schemaVersion: 1, threadId: 't-1', query: 'q' };
    expect(MemoryRetrieveRequest.safeParse({ ...retrieve, limit: MAX_MEMORY_LIMIT }).success).toBe(true);
    expect(MemoryRetrieveRequest.safeParse({ ...retrieve, limit: MAX_MEMORY_LIMIT + 1 }).success).toBe(false);
    expect(MemoryRetrieveRequest.safeParse({ ...retrieve, limit: 0 }).success).toBe(false);
  });

  it('memory ids are mem- and hex; a missing summary is null', () => {
    const item = {
      id: 'mem-0123abcd',
      threadId: 't',
      kind: 'semantic',
      text: 'x',
      createdAt: '2026-11-24T00:00:00Z',
    };
    expect(MemoryItem.safeParse(item).success).toBe(true);
    expect(MemoryItem.safeParse({ ...item, id: 'm-1' }).success).toBe(false);
    expect(MemorySummaryReply.parse({ schemaVersion: 1, summary: null }).summary).toBeNull();
  });
});
