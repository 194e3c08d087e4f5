import type { ToolCatalog } from '@novelrag/agenturn';
import { approve, assess, callTool, discover } from './test-support/script';
import { setup } from './test-support/harness';
import { catalog, progress } from './test-support/world';

describe('ActionDetermineLoop: tools the catalog does not offer yet', () => {
  it('looks for an unavailable tool the model asks for before the decision, and can then call it', async () => {
    // The catalog marks the tool unavailable (its last instance went down); a new instance runs but did not announce.
    let current = catalog().withAvailability({ create_element: false });
    const live = new Proxy({} as ToolCatalog, {
      get: (_target, key) => {
        const value: unknown = Reflect.get(current, key, current);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(current) : value;
      },
    });
    const looked: string[][] = [];
    const t = setup(
      [
        assess(),
        discover({ expand_tools: ['create_element'] }),
        callTool('create_element', { uri: '/character/lin', name: 'Lin' }),
        approve(),
      ],
      {
        findTools: (names) => {
          looked.push([...names]);
          current = catalog(); // the discovery finds the new instance
          return Promise.resolve();
        },
      },
    );
    const decision = await t.loop.determineAction({
      beliefs: [],
      progress: progress(),
      tools: live,
      ctx: t.context,
    });
    t.model.assertDone();
    expect(looked).toEqual([['create_element']]);
    expect(decision).toMatchObject({
      kind: 'operation',
      tool: 'create_element',
      parameters: { name: 'Lin' },
    });
  });
});
