import { deferred } from '@novelrag/agenturn/testing';
import { ResourceLanes, resourcesOf } from './resource-lanes';

describe('resource lanes', () => {
  it('reads the resources a call names from uri- and path-like parameters', () => {
    expect(resourcesOf({ uri: '/a', name: 'x', target_uri: '/b', uris: ['/c', 3], path: ' ' })).toEqual([
      '/a',
      '/b',
      '/c',
    ]);
    expect(resourcesOf({ query: '/a' })).toEqual([]);
  });

  it('runs calls on the same resource one after the other, and others at once', async () => {
    const lanes = new ResourceLanes();
    const order: string[] = [];
    const firstMayEnd = deferred<void>();
    const run = async (name: string, resources: string[], until?: Promise<void>) => {
      const leave = await lanes.enter(resources);
      order.push(`${name} start`);
      await until;
      order.push(`${name} end`);
      leave();
    };
    const a = run('a', ['/x'], firstMayEnd.promise);
    const b = run('b', ['/x', '/z']);
    const c = run('c', ['/y']);
    await c; // independent: ran while a still holds /x
    expect(order).toEqual(['a start', 'c start', 'c end']);
    firstMayEnd.resolve();
    await Promise.all([a, b]);
    expect(order).toEqual(['a start', 'c start', 'c end', 'a end', 'b start', 'b end']);
  });
});
