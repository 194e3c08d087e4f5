/// <reference types="jest" />
import { ThreadMemory, type MemoryUpsert } from '@novelrag/repository';
import type { ContractContext } from './context';
import { contractEmbedder } from './fixtures';

/** A clock that moves one second per reading (creation order is then observable). */
function ticking(): () => string {
  let t = Date.parse('2026-11-24T00:00:00.000Z');
  return () => new Date((t += 1_000)).toISOString();
}

const memoryOf = (ctx: ContractContext) => new ThreadMemory(ctx.store.memory, contractEmbedder(), ticking());

const exchange = (threadId: string, goalId: string, question: string, answer: string, facts?: string[]) => ({
  threadId,
  goalId,
  question,
  answer,
  ...(facts ? { facts } : {}),
});

/**
 * Thread memory (`ResourceStore.memory` through `ThreadMemory`): what every store must do with it, restarts
 * included. The embedder is the offline one, so ranking rests on the keyword side as much as on the vectors.
 */
export function registerMemoryCases(ctx: () => ContractContext): void {
  it('keeps threads apart and ranks the relevant memory first, in English and in Chinese', async () => {
    const memory = memoryOf(ctx());
    await memory.storeInteraction(
      exchange('t-a', 'g-1', 'Who leads the Azure Sect?', 'Elder Lin Wu leads it.'),
    );
    await memory.storeInteraction(
      exchange('t-a', 'g-2', 'What is the weather in the capital?', 'Rainy all spring.'),
    );
    await memory.storeInteraction(
      exchange('t-a', 'g-3', '余归的师父是谁？', '余归的师父是青云子。', ['我喜欢余归这个角色']),
    );
    await memory.storeInteraction(
      exchange('t-b', 'g-4', 'Who leads the Azure Sect?', 'Nobody, in thread b.'),
    );

    const en = await memory.retrieveRelevant('Azure Sect leader', 't-a');
    expect(en[0]).toMatchObject({ threadId: 't-a', goalId: 'g-1', kind: 'episodic' });
    expect(en[0]?.text).toBe('Q: Who leads the Azure Sect?\nA: Elder Lin Wu leads it.');
    expect(en.every((item) => item.threadId === 't-a')).toBe(true);
    expect(en.map((item) => item.goalId)).not.toContain('g-4');
    expect(en[0]?.score).toBeGreaterThan(en.find((item) => item.goalId === 'g-2')?.score ?? -1);

    const zh = await memory.retrieveRelevant('余归的师父', 't-a', 2);
    expect(zh).toHaveLength(2);
    expect(zh.map((item) => item.goalId)).toEqual(['g-3', 'g-3']);
    expect(zh.map((item) => item.kind).sort()).toEqual(['episodic', 'semantic']);
    expect(await memory.retrieveRelevant('Azure Sect', 't-nobody')).toEqual([]);
  });

  it('replaces what a goal stored when it stores again, and keeps the other goals', async () => {
    const memory = memoryOf(ctx());
    expect(await memory.storeInteraction(exchange('t-r', 'g-1', 'first?', 'one', ['fact a', 'fact b']))).toBe(
      3,
    );
    await memory.storeInteraction(exchange('t-r', 'g-2', 'second?', 'two'));
    expect(await memory.storeInteraction(exchange('t-r', 'g-1', 'first again?', 'uno', ['fact c']))).toBe(2);
    const rows = await ctx().store.memory.listMemories({ threadId: 't-r' });
    // Oldest first: g-2, then g-1's new rows (one creation time, so their order is by id).
    const seen = rows.map((row) => [row.goalId, row.kind, row.text]);
    expect(seen[0]).toEqual(['g-2', 'episodic', 'Q: second?\nA: two']);
    expect(seen.slice(1).sort()).toEqual([
      ['g-1', 'episodic', 'Q: first again?\nA: uno'],
      ['g-1', 'semantic', 'fact c'],
    ]);
    expect(rows.every((row) => /^mem-[0-9a-f]{24}$/.test(row.id))).toBe(true);
    expect(await ctx().store.memory.listMemories({ threadId: 't-r', goalId: 'g-2' })).toHaveLength(1);
  });

  it('keeps one session summary per thread: set, kept when absent, replaced', async () => {
    const memory = memoryOf(ctx());
    expect(await memory.sessionSummary('t-s')).toBeNull();
    await memory.storeInteraction({
      ...exchange('t-s', 'g-1', 'q?', 'a'),
      summary: 'The user asks about 余归.',
    });
    await memory.storeInteraction(exchange('t-s', 'g-2', 'q2?', 'a2'));
    expect(await memory.sessionSummary('t-s')).toBe('The user asks about 余归.');
    await memory.storeInteraction({ ...exchange('t-s', 'g-3', 'q3?', 'a3'), summary: 'Now about the sect.' });
    expect(await memory.sessionSummary('t-s')).toBe('Now about the sect.');
    expect(await memory.sessionSummary('t-other')).toBeNull();
    const found = await memory.retrieveRelevant('Now about the sect', 't-s', 10);
    expect(found.every((item) => item.kind !== ('summary' as string))).toBe(true);
  });

  it('forgets a whole thread, counting the summary as one, and nothing of other threads', async () => {
    const memory = memoryOf(ctx());
    await memory.storeInteraction({ ...exchange('t-f', 'g-1', 'q?', 'a', ['f1', 'f2']), summary: 's' });
    await memory.storeInteraction(exchange('t-f', 'g-2', 'q2?', 'a2'));
    await memory.storeInteraction({ ...exchange('t-keep', 'g-3', 'q?', 'a'), summary: 'kept' });
    expect(await memory.forget('t-f')).toBe(5);
    expect(await memory.forget('t-f')).toBe(0);
    expect(await memory.sessionSummary('t-f')).toBeNull();
    expect(await memory.retrieveRelevant('q', 't-f')).toEqual([]);
    expect(await memory.sessionSummary('t-keep')).toBe('kept');
    expect(await memory.retrieveRelevant('q', 't-keep')).toHaveLength(1);
  });

  it('survives a restart: summary, memories and their search', async () => {
    const before = memoryOf(ctx());
    await before.storeInteraction({
      ...exchange('t-p', 'g-1', '青云宗在哪里？', '青云宗在北方的雪山上。', [
        'The user writes a wuxia novel',
      ]),
      summary: 'persisted summary',
    });
    await ctx().restart();
    const after = memoryOf(ctx());
    expect(await after.sessionSummary('t-p')).toBe('persisted summary');
    const [first] = await after.retrieveRelevant('青云宗', 't-p');
    expect(first).toMatchObject({ goalId: 'g-1', kind: 'episodic' });
    expect((await after.retrieveRelevant('wuxia novel', 't-p'))[0]).toMatchObject({ kind: 'semantic' });
  });

  it('store operations: idempotent upsert by id, absent deletes are no-ops, the summary is never searched', async () => {
    const { memory } = ctx().store;
    const vector = (await contractEmbedder().embed(['alpha beta']))[0] ?? [];
    const row = (id: string, kind: 'episodic' | 'summary', text: string): MemoryUpsert => ({
      row: {
        id,
        threadId: 't-d',
        kind,
        goalId: kind === 'summary' ? null : 'g-1',
        text,
        createdAt: '2026-11-24T00:00:01.000Z',
      },
      vector: kind === 'summary' ? null : vector,
    });
    await memory.upsertMemories([
      row('mem-00000001', 'episodic', 'alpha beta'),
      row('mem-00000002', 'summary', 'alpha beta'),
    ]);
    await memory.upsertMemories([row('mem-00000001', 'episodic', 'alpha beta')]);
    await memory.deleteMemories(['mem-0000ffff']);
    expect((await memory.listMemories({ threadId: 't-d' })).map((r) => r.id)).toEqual([
      'mem-00000001',
      'mem-00000002',
    ]);
    expect(await memory.getMemory('mem-00000002')).toMatchObject({
      kind: 'summary',
      goalId: null,
      text: 'alpha beta',
    });
    expect(await memory.getMemory('mem-0000ffff')).toBeNull();
    const hits = await memory.searchMemories({ threadId: 't-d', text: 'alpha', vector, limit: 5 });
    expect(hits.map((hit) => hit.row.id)).toEqual(['mem-00000001']);
    expect(await memory.searchMemories({ threadId: 't-d', text: 'alpha', vector, limit: 0 })).toEqual([]);
  });
}
