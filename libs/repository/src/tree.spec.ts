import { isResourceError, type ResourceErrorCode } from './errors';
import type { Operation, ReversibleAction } from './operations';
import { ResourceTree } from './tree';

function seeded(): ResourceTree {
  const tree = new ResourceTree();
  tree.addAspect({ name: 'character', description: 'people', childrenKeys: [], metadata: {} });
  tree.addAspect({ name: 'outline', childrenKeys: ['scenes'], metadata: { kind: 'plot' } });
  tree.addAspect({ name: 'location', childrenKeys: ['places'], metadata: {} }, [
    {
      id: 'europe',
      places: [{ id: 'london', places: [{ id: 'baker_street', number: '221B' }] }],
    },
  ]);
  tree.apply({
    target: 'resource',
    location: { resource_uri: '/character', children_key: null },
    start: 0,
    data: [
      { id: 'yu_gui', name: '余归', age: 17, relationships: { '/location/europe': ['visited'] } },
      { id: 'lin', name: 'Lin' },
    ],
  });
  tree.apply({
    target: 'resource',
    location: { resource_uri: '/outline', children_key: null },
    start: 0,
    data: [{ id: 'chapter_1', title: 'Start', scenes: [{ id: 's1' }, { id: 's2' }] }],
  });
  return tree;
}

function expectCode(call: () => unknown, code: ResourceErrorCode, text?: string): void {
  let caught: unknown;
  try {
    call();
  } catch (err) {
    caught = err;
  }
  expect(isResourceError(caught, code)).toBe(true);
  if (text) expect((caught as Error).message).toContain(text);
}

function roundTrip(tree: ResourceTree, action: ReversibleAction): void {
  const before = tree.snapshot();
  const { inverse } = tree.execute(action);
  const after = tree.snapshot();
  expect(after).not.toEqual(before);
  const { inverse: again } = tree.execute(inverse);
  expect(tree.snapshot()).toEqual(before);
  // the inverse of the inverse re-does the change exactly
  const { inverse: back } = tree.execute(again);
  expect(tree.snapshot()).toEqual(after);
  tree.execute(back);
  expect(tree.snapshot()).toEqual(before);
}

const apply = (op: Operation): ReversibleAction => ({ method: 'apply', op });

describe('ResourceTree: property operations', () => {
  it('sets, overwrites and deletes; the inverse restores OLD values and deletes added keys', () => {
    const tree = seeded();
    const before = tree.snapshot();
    const { inverse, changed } = tree.apply({
      target: 'property',
      resource_uri: '/character/yu_gui',
      data: { age: 18, title: 'heir', name: null },
    });
    expect(tree.get('/character/yu_gui')?.properties).toEqual({ age: 18, title: 'heir' });
    expect(inverse).toEqual({
      target: 'property',
      resource_uri: '/character/yu_gui',
      data: { age: 17, title: null, name: '余归' },
    });
    expect(changed.upserted.map((record) => record.uri)).toEqual(['/character/yu_gui']);
    tree.apply(inverse);
    expect(tree.snapshot()).toEqual(before);
  });

  it('works on nested elements', () => {
    const tree = seeded();
    roundTrip(
      tree,
      apply({
        target: 'property',
        resource_uri: '/location/europe/london/baker_street',
        data: { number: '221C' },
      }),
    );
  });

  it('rejects reserved names and children keys with VALIDATION_FAILED, naming the keys', () => {
    const tree = seeded();
    for (const key of ['id', 'uri', 'relationships', 'aspect', 'children_keys', 'embedding', 'hash']) {
      expectCode(
        () => tree.apply({ target: 'property', resource_uri: '/character/lin', data: { [key]: 'x' } }),
        'VALIDATION_FAILED',
        key,
      );
    }
    expectCode(
      () => tree.apply({ target: 'property', resource_uri: '/outline/chapter_1', data: { scenes: [] } }),
      'VALIDATION_FAILED',
      'scenes',
    );
    expect(tree.get('/character/lin')?.properties).toEqual({ name: 'Lin' });
  });

  it('NOT_FOUND for a missing element, VALIDATION_FAILED for an aspect URI, INVALID_URI for a bad one', () => {
    const tree = seeded();
    expectCode(
      () => tree.apply({ target: 'property', resource_uri: '/character/nobody', data: { a: 1 } }),
      'NOT_FOUND',
    );
    expectCode(
      () => tree.apply({ target: 'property', resource_uri: '/character', data: { a: 1 } }),
      'VALIDATION_FAILED',
    );
    expectCode(
      () => tree.apply({ target: 'property', resource_uri: '/character/../x', data: { a: 1 } }),
      'INVALID_URI',
    );
  });
});

describe('ResourceTree: splices', () => {
  it('inserts at the root list; the inverse removes them', () => {
    const tree = seeded();
    roundTrip(
      tree,
      apply({
        target: 'resource',
        location: { resource_uri: '/character', children_key: null },
        start: 1,
        data: [{ id: 'mo' }],
      }),
    );
  });

  it('replaces a range; the inverse restores removed subtrees with relationships', () => {
    const tree = seeded();
    const before = tree.snapshot();
    const { inverse, changed } = tree.apply({
      target: 'resource',
      location: { resource_uri: '/location', children_key: null },
      start: 0,
      end: 1,
      data: [{ id: 'asia' }],
    });
    expect(tree.has('/location/europe/london/baker_street')).toBe(false);
    expect(changed.deleted.sort()).toEqual([
      '/location/europe',
      '/location/europe/london',
      '/location/europe/london/baker_street',
    ]);
    expect(changed.aspectsChanged).toBe(true);
    expect(inverse).toEqual({
      target: 'resource',
      location: { resource_uri: '/location', children_key: null },
      start: 0,
      end: 1,
      data: [{ id: 'europe', places: [{ id: 'london', places: [{ id: 'baker_street', number: '221B' }] }] }],
    });
    tree.apply(inverse);
    expect(tree.snapshot()).toEqual(before);
  });

  it('splices children lists and reports the parent as changed', () => {
    const tree = seeded();
    const { changed, inverse } = tree.apply({
      target: 'resource',
      location: { resource_uri: '/outline/chapter_1', children_key: 'scenes' },
      start: 1,
      end: 2,
      data: [{ id: 's3', text: 'x' }],
    });
    expect(tree.get('/outline/chapter_1')?.children).toEqual({ scenes: ['s1', 's3'] });
    expect(changed.upserted.map((record) => record.uri)).toEqual([
      '/outline/chapter_1/s3',
      '/outline/chapter_1',
    ]);
    expect(changed.deleted).toEqual(['/outline/chapter_1/s2']);
    expect(changed.aspectsChanged).toBe(false);
    expect(inverse).toMatchObject({ start: 1, end: 2, data: [{ id: 's2' }] });
  });

  it('indexes whole subtrees on insert (3 levels) and removes them with their parent', () => {
    const tree = seeded();
    tree.apply({
      target: 'resource',
      location: { resource_uri: '/outline', children_key: null },
      start: 1,
      data: [
        {
          id: 'chapter_2',
          scenes: [{ id: 'scene', scenes: [{ id: 'beat', scenes: [{ id: 'line', text: 'deep' }] }] }],
        },
      ],
    });
    expect(tree.find('/outline/chapter_2/scene/beat/line')).toMatchObject({
      kind: 'element',
      record: { properties: { text: 'deep' } },
    });
    const { changed } = tree.apply({
      target: 'resource',
      location: { resource_uri: '/outline', children_key: null },
      start: 1,
      end: 2,
      data: null,
    });
    expect(changed.deleted).toHaveLength(4);
    expect(tree.find('/outline/chapter_2/scene/beat/line')).toBeNull();
    expect(tree.find('/outline/chapter_2/scene')).toBeNull();
  });

  it('detects duplicates against existing elements and within the same data', () => {
    const tree = seeded();
    const before = tree.snapshot();
    const root = { resource_uri: '/character', children_key: null };
    expectCode(
      () => tree.apply({ target: 'resource', location: root, start: 0, data: [{ id: 'lin' }] }),
      'ALREADY_EXISTS',
      '/character/lin',
    );
    expectCode(
      () =>
        tree.apply({ target: 'resource', location: root, start: 0, data: [{ id: 'twin' }, { id: 'twin' }] }),
      'ALREADY_EXISTS',
    );
    expectCode(
      () =>
        tree.apply({
          target: 'resource',
          location: { resource_uri: '/outline/chapter_1', children_key: 'scenes' },
          start: 0,
          data: [{ id: 'x', scenes: [{ id: 'y' }, { id: 'y' }] }],
        }),
      'ALREADY_EXISTS',
      '/outline/chapter_1/x/y',
    );
    expect(tree.snapshot()).toEqual(before);
  });

  it('allows re-inserting an id that the same splice removes', () => {
    const tree = seeded();
    tree.apply({
      target: 'resource',
      location: { resource_uri: '/character', children_key: null },
      start: 1,
      end: 2,
      data: [{ id: 'lin', name: 'Lin 2' }],
    });
    expect(tree.get('/character/lin')?.properties).toEqual({ name: 'Lin 2' });
  });

  it('root splice on a missing aspect is NOT_FOUND; missing parent NOT_FOUND; bad key / bounds VALIDATION_FAILED', () => {
    const tree = seeded();
    expectCode(
      () =>
        tree.apply({
          target: 'resource',
          location: { resource_uri: '/ghost', children_key: null },
          start: 0,
          data: [{ id: 'a' }],
        }),
      'NOT_FOUND',
    );
    expectCode(
      () =>
        tree.apply({
          target: 'resource',
          location: { resource_uri: '/outline/nope', children_key: 'scenes' },
          start: 0,
          data: [],
        }),
      'NOT_FOUND',
    );
    expectCode(
      () =>
        tree.apply({
          target: 'resource',
          location: { resource_uri: '/outline/chapter_1', children_key: 'acts' },
          start: 0,
          data: [],
        }),
      'VALIDATION_FAILED',
      'children key',
    );
    expectCode(
      () =>
        tree.apply({
          target: 'resource',
          location: { resource_uri: '/character', children_key: null },
          start: 5,
          data: [],
        }),
      'VALIDATION_FAILED',
      'out of bounds',
    );
    expectCode(
      () =>
        tree.apply({
          target: 'resource',
          location: { resource_uri: '/character/lin', children_key: null },
          start: 0,
          data: [],
        }),
      'VALIDATION_FAILED',
    );
    expectCode(
      () =>
        tree.apply({
          target: 'resource',
          location: { resource_uri: '/character', children_key: null },
          start: 0,
          data: [{ id: '..' }],
        }),
      'INVALID_URI',
    );
  });
});

describe('ResourceTree: relationships', () => {
  it('returns the old list, is one-directional, and an empty list removes the key', () => {
    const tree = seeded();
    const { old } = tree.updateRelationships('/character/yu_gui', '/location/europe', ['lives in']);
    expect(old).toEqual(['visited']);
    expect(tree.get('/character/yu_gui')?.relationships).toEqual({ '/location/europe': ['lives in'] });
    expect(tree.get('/location/europe')?.relationships).toEqual({});
    expect(tree.updateRelationships('/character/yu_gui', '/character/lin', []).old).toEqual([]);
    tree.updateRelationships('/character/yu_gui', '/location/europe', []);
    expect(tree.get('/character/yu_gui')?.relationships).toEqual({});
  });

  it('round-trips through execute and validates the source', () => {
    const tree = seeded();
    roundTrip(tree, {
      method: 'update_relationships',
      source_uri: '/character/lin',
      target_uri: '/character',
      relationships: ['a', 'b'],
    });
    expectCode(() => tree.updateRelationships('/character/nobody', '/character/lin', ['x']), 'NOT_FOUND');
    expectCode(() => tree.updateRelationships('/character', '/character/lin', ['x']), 'VALIDATION_FAILED');
    expectCode(() => tree.updateRelationships('/character/lin', 'nope', ['x']), 'INVALID_URI');
  });
});

describe('ResourceTree: aspects and find', () => {
  it('addAspect refuses an existing name', () => {
    const tree = seeded();
    expectCode(() => tree.addAspect({ name: 'character', childrenKeys: [], metadata: {} }), 'ALREADY_EXISTS');
  });

  it('removeAspect removes its data; the inverse restores aspect, position and elements', () => {
    const tree = seeded();
    const before = tree.snapshot();
    const { inverse, changed } = tree.execute({ method: 'remove_aspect', name: 'location' });
    expect(changed.deleted).toHaveLength(3);
    expect(tree.find('/location')).toBeNull();
    expect(tree.find('/location/europe/london')).toBeNull();
    expect(inverse).toMatchObject({
      method: 'add_aspect',
      name: 'location',
      config: { children_keys: ['places'] },
      index: 2,
    });
    tree.execute(inverse);
    expect(tree.snapshot()).toEqual(before);
    roundTrip(tree, { method: 'remove_aspect', name: 'character' });
    expectCode(() => tree.removeAspect('ghost'), 'NOT_FOUND');
  });

  it('find resolves root, aspect, element and null', () => {
    const tree = seeded();
    const root = tree.find('/');
    expect(root?.kind === 'root' && root.aspects.map((aspect) => aspect.name)).toEqual([
      'character',
      'outline',
      'location',
    ]);
    expect(tree.find('/outline')).toEqual({
      kind: 'aspect',
      aspect: { name: 'outline', childrenKeys: ['scenes'], metadata: { kind: 'plot' } },
      rootIds: ['chapter_1'],
    });
    expect(tree.find('/character/lin')).toMatchObject({ kind: 'element', record: { id: 'lin' } });
    expect(tree.find('/character/none')).toBeNull();
    expect(tree.find('/ghost')).toBeNull();
    expectCode(() => tree.find('//'), 'INVALID_URI');
  });

  it('hands out copies', () => {
    const tree = seeded();
    const record = tree.get('/character/lin');
    (record as { properties: Record<string, unknown> }).properties['name'] = 'mutated';
    expect(tree.get('/character/lin')?.properties).toEqual({ name: 'Lin' });
  });
});

describe('ResourceTree: load / snapshot', () => {
  it('rebuilds the same tree from a snapshot', () => {
    const tree = seeded();
    const snapshot = tree.snapshot();
    const copy = new ResourceTree();
    expect(copy.load(snapshot.aspects, [...snapshot.records].reverse())).toEqual({
      orphans: [],
      missing: [],
    });
    expect(copy.snapshot()).toEqual(snapshot);
  });

  it('reports orphans and drops ids whose record is missing', () => {
    const snapshot = seeded().snapshot();
    const records = snapshot.records.filter((record) => record.uri !== '/outline/chapter_1/s2');
    records.push({ ...records[0]!, uri: '/character/ghost', id: 'ghost' });
    const copy = new ResourceTree();
    expect(copy.load(snapshot.aspects, records)).toEqual({
      orphans: ['/character/ghost'],
      missing: ['/outline/chapter_1/s2'],
    });
    expect(copy.get('/outline/chapter_1')?.children).toEqual({ scenes: ['s1'] });
    // The dropped id is not written back into the records the tree was loaded from.
    expect(records.find((record) => record.uri === '/outline/chapter_1')?.children).toEqual({
      scenes: ['s1', 's2'],
    });
  });

  it("orders a loaded record's children keys as its aspect does, whatever order the store gave them in", () => {
    const snapshot = seeded().snapshot();
    const aspects = snapshot.aspects.map((aspect) =>
      aspect.name === 'outline' ? { ...aspect, childrenKeys: ['scenes', 'beats'] } : aspect,
    );
    const records = snapshot.records.map((record) =>
      record.uri === '/outline/chapter_1'
        ? { ...record, children: { beats: [], scenes: record.children['scenes'] ?? [] } }
        : record,
    );
    const copy = new ResourceTree();
    copy.load(aspects, records);
    expect(Object.keys(copy.get('/outline/chapter_1')?.children ?? {})).toEqual(['scenes', 'beats']);
  });

  it('hands out live records in snapshot order without copying them', () => {
    const tree = seeded();
    const live = [...tree.liveRecords()];
    expect(live).toEqual(tree.snapshot().records);
    expect(live[0]).toBe(tree.peek(live[0]!.uri));
  });
});
