/// <reference types="jest" />
import { type ContractContext, expectCode } from './context';

export function registerBacklogCases(ctx: () => ContractContext): void {
  it('backlogAdd stores an entry; identical content merges, keeping the higher priority', async () => {
    const topic = ctx().unique('thread');
    const { entry } = await ctx().service.backlogAdd({ content: { description: topic }, priority: 3 });
    expect(entry).toMatchObject({ content: { description: topic }, priority: 3 });
    expect(Date.parse(entry.createdAt)).not.toBeNaN();
    const merged = await ctx().service.backlogAdd({ content: { description: topic }, priority: 8 });
    expect(merged.entry).toMatchObject({ id: entry.id, priority: 8 });
    const lower = await ctx().service.backlogAdd({ content: { description: topic }, priority: 1 });
    expect(lower.entry).toMatchObject({ id: entry.id, priority: 8 });
    await expectCode(
      ctx().service.backlogAdd({ content: { description: topic }, priority: 11 }),
      'VALIDATION_FAILED',
    );
  });

  it('backlogList orders by priority then age; backlogRemove returns only the entries that existed', async () => {
    const low = ctx().unique('low');
    const high = ctx().unique('high');
    const a = (await ctx().service.backlogAdd({ content: { description: low }, priority: 0 })).entry;
    const b = (await ctx().service.backlogAdd({ content: { description: high }, priority: 10 })).entry;
    const { entries } = await ctx().service.backlogList();
    const ours = entries.filter((e) => e.id === a.id || e.id === b.id).map((e) => e.id);
    expect(ours).toEqual([b.id, a.id]);
    expect(entries[0]?.priority).toBe(10);
    expect((await ctx().service.backlogList({ limit: 1 })).entries).toHaveLength(1);
    const removed = await ctx().service.backlogRemove({ ids: [a.id, 'no-such-entry'] });
    expect(removed.removed.map((e) => e.id)).toEqual([a.id]);
    await expect(ctx().service.backlogRemove({ ids: [a.id] })).resolves.toEqual({ removed: [] });
    const after = (await ctx().service.backlogList()).entries.map((e) => e.id);
    expect(after).toContain(b.id);
    expect(after).not.toContain(a.id);
  });
}
