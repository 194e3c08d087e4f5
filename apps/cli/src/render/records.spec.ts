import { displayWidth, renderFind, renderGoalList, renderUndoRedo } from './records';

describe('record rendering', () => {
  it('counts CJK characters as two columns so tables line up', () => {
    expect(displayWidth('余归')).toBe(4);
    expect(displayWidth('Lin')).toBe(3);
  });

  it('lists goals as a table with the next cursor', () => {
    const goal = {
      schemaVersion: 1 as const,
      goalId: 'g-1',
      threadId: 'g-1',
      status: 'queued' as const,
      source: 'user' as const,
      goal: null,
      request: '创建余归',
      lang: 'zh',
      beliefs: [],
      limits: {},
      steps: [],
      usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      cancelRequested: false,
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:01.000Z',
    };
    expect(renderGoalList({ goals: [goal], nextCursor: 'c2' }).split('\n')).toEqual([
      'GOAL  STATUS  STEPS  UPDATED              REQUEST',
      'g-1   queued  0      2026-01-01 00:00:01  创建余归',
      '(more: --cursor c2)',
    ]);
    expect(renderGoalList({ goals: [], nextCursor: null })).toBe('No goals.');
  });

  it('prints elements as YAML and undo results like the original shell', () => {
    const text = renderFind({
      kind: 'element',
      uri: '/character/yugui',
      element: {
        id: 'yugui',
        uri: '/character/yugui',
        aspect: 'character',
        relationships: { '/faction/azure_sect': ['member'] },
        properties: { name: '余归' },
        children: {},
      } as never,
    });
    expect(text).toContain('/character/yugui\nproperties:\n  name: 余归');
    expect(text).toContain('/faction/azure_sect:\n    - member');
    expect(renderUndoRedo({ status: 'empty', action: 'undo' })).toBe('No actions to undo.');
    expect(
      renderUndoRedo({
        status: 'applied',
        action: 'undo',
        count: 1,
        descriptions: ['create 余归'],
        changedUris: ['/character/yugui'],
      }),
    ).toBe('Undid action: create 余归\nchanged: /character/yugui');
  });
});
