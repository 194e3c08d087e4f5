import { describeEvent } from './follow';
import { repositoryPath, resourceUri } from './resources';

describe('novelrag:// resource URIs', () => {
  it('map to repository paths and back, Chinese ids included', () => {
    expect(repositoryPath('novelrag://character/yugui')).toBe('/character/yugui');
    expect(repositoryPath('novelrag://character/%E4%BD%99%E5%BD%92')).toBe('/character/余归');
    expect(repositoryPath('/character/yugui/')).toBe('/character/yugui');
    expect(repositoryPath('novelrag://')).toBe('/');
    expect(resourceUri('/character/yugui')).toBe('novelrag://character/yugui');
  });
});

describe('progress messages', () => {
  it('name the step and its outcome, never the model content', () => {
    const base = { schemaVersion: 1, goalId: 'g-1', threadId: 'g-1', at: '2026-01-01T00:00:00.000Z' };
    expect(
      describeEvent({
        ...base,
        kind: 'operation.outcome',
        invocationId: 'g-1-s0',
        tool: 'ResourceWriteTool',
        status: 'success',
        result: 'secret text',
        durationMs: 5,
      } as never),
    ).toBe('step: ResourceWriteTool success');
    expect(describeEvent({ ...base, kind: 'goal.completed' } as never)).toBe('goal.completed');
  });
});
