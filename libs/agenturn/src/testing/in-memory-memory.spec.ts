import { InMemoryMemory } from './in-memory-memory';

describe('InMemoryMemory', () => {
  it('keeps threads apart, replaces a goal’s exchange, ranks by overlap and forgets a thread', async () => {
    const memory = new InMemoryMemory(() => '2026-11-24T00:00:00.000Z');
    await memory.storeInteraction({
      threadId: 't1',
      goalId: 'g1',
      question: 'Who is 余归?',
      answer: 'A swordswoman of the Azure Sect.',
      summary: 'Talking about 余归.',
      facts: ['The user prefers Chinese names.'],
    });
    await memory.storeInteraction({
      threadId: 't2',
      goalId: 'g2',
      question: 'Who is Ash Heron?',
      answer: 'A spy.',
    });
    await memory.storeInteraction({
      threadId: 't1',
      goalId: 'g1',
      question: 'Who is 余归?',
      answer: 'A sect elder.',
    });

    expect(await memory.sessionSummary('t1')).toBe('Talking about 余归.');
    expect(await memory.sessionSummary('t2')).toBeNull();
    const found = await memory.retrieveRelevant('余归 and her sect', 't1');
    expect(found.map((m) => m.kind)).toEqual(['episodic']);
    expect(found[0]?.text).toContain('A sect elder.');
    expect(await memory.retrieveRelevant('Ash Heron', 't1')).toEqual([]);
    expect(await memory.forget('t1')).toBe(2);
    expect(await memory.retrieveRelevant('余归', 't1')).toEqual([]);
    expect(await memory.retrieveRelevant('Ash Heron', 't2')).toHaveLength(1);
  });
});
