import { createHash } from 'node:crypto';
import { isResourceError } from './errors';
import {
  type Aspect,
  aspectView,
  contentHash,
  contextView,
  dumped,
  elementDict,
  type ElementRecord,
  embeddingText,
  nested,
  props,
  recordsFromDumped,
  validateAspect,
} from './model';

const outline: Aspect = {
  name: 'outline',
  description: 'plot',
  childrenKeys: ['scenes'],
  metadata: { style: 'terse' },
};

const chapter = {
  id: 'chapter_1',
  relationships: { '/character/yu_gui': ['protagonist appears'] },
  title: 'Beginnings',
  scenes: [
    { id: 'scene_a', summary: 'A', scenes: [{ id: 'beat_1', text: 'first' }] },
    { id: 'scene_b', summary: 'B' },
  ],
};

function build(): { records: ElementRecord[]; lookup: (uri: string) => ElementRecord | undefined } {
  const records = recordsFromDumped(outline, '/outline', [chapter]);
  const byUri = new Map(records.map((record) => [record.uri, record]));
  return { records, lookup: (uri) => byUri.get(uri) };
}

describe('recordsFromDumped', () => {
  it('stores no null property (null means no value, as in a property write)', () => {
    const [record] = recordsFromDumped(outline, '/outline', [
      { id: 'c', title: 'T', nickname: null, scenes: null },
    ]);
    expect(record?.properties).toEqual({ title: 'T' });
    expect(record?.children).toEqual({ scenes: [] });
  });

  it('flattens a nested element into pre-order records linked by id', () => {
    const { records } = build();
    expect(records.map((record) => record.uri)).toEqual([
      '/outline/chapter_1',
      '/outline/chapter_1/scene_a',
      '/outline/chapter_1/scene_a/beat_1',
      '/outline/chapter_1/scene_b',
    ]);
    expect(records[0]).toEqual({
      id: 'chapter_1',
      uri: '/outline/chapter_1',
      aspect: 'outline',
      parentUri: null,
      relationships: { '/character/yu_gui': ['protagonist appears'] },
      properties: { title: 'Beginnings' },
      children: { scenes: ['scene_a', 'scene_b'] },
    });
    expect(records[2]).toMatchObject({ parentUri: '/outline/chapter_1/scene_a', children: { scenes: [] } });
  });

  it('round-trips through dumped()', () => {
    const { records, lookup } = build();
    expect(dumped(lookup, records[0] as ElementRecord)).toEqual(chapter);
  });

  it.each([
    [{ title: 'no id' }, 'no id'],
    [{ id: 'x', hash: 'h' }, 'reserved'],
    [{ id: 'x', children_keys: [] }, 'reserved'],
    [{ id: 'x', scenes: 'not a list' }, 'must hold a list'],
    [{ id: 'x', relationships: { '/a': 'not a list' } }, 'relationships'],
    [{ id: 'x', uri: '/elsewhere/x' }, 'reserved'],
  ])('rejects %j with VALIDATION_FAILED', (item, reason) => {
    let caught: unknown;
    try {
      recordsFromDumped(outline, '/outline', [item]);
    } catch (err) {
      caught = err;
    }
    expect(isResourceError(caught, 'VALIDATION_FAILED')).toBe(true);
    expect((caught as Error).message).toContain(reason);
  });

  it('accepts a uri/aspect key equal to the computed value, and trims ids', () => {
    const [record] = recordsFromDumped(outline, '/outline', [
      { id: ' x ', uri: '/outline/x', aspect: 'outline' },
    ]);
    expect(record).toMatchObject({ id: 'x', uri: '/outline/x', properties: {} });
  });

  it('rejects ids that make bad URIs with INVALID_URI', () => {
    expect(() => recordsFromDumped(outline, '/outline', [{ id: 'a/b' }])).toThrow(
      expect.objectContaining({ code: 'INVALID_URI' }),
    );
  });
});

describe('views', () => {
  it('props, elementDict, contextView, nested', () => {
    const { records, lookup } = build();
    const root = records[0] as ElementRecord;
    expect(props(root)).toEqual({ title: 'Beginnings' });
    expect(elementDict(root)).toEqual({ id: 'chapter_1', uri: '/outline/chapter_1', title: 'Beginnings' });
    expect(contextView(root)).toEqual({
      id: 'chapter_1',
      uri: '/outline/chapter_1',
      title: 'Beginnings',
      aspect: 'outline',
      relationships: { '/character/yu_gui': ['protagonist appears'] },
      scenes: ['scene_a', 'scene_b'],
    });
    expect(nested(lookup, root)).toEqual({
      id: 'chapter_1',
      uri: '/outline/chapter_1',
      title: 'Beginnings',
      scenes: [
        {
          id: 'scene_a',
          uri: '/outline/chapter_1/scene_a',
          summary: 'A',
          scenes: [{ id: 'beat_1', uri: '/outline/chapter_1/scene_a/beat_1', text: 'first', scenes: [] }],
        },
        { id: 'scene_b', uri: '/outline/chapter_1/scene_b', summary: 'B', scenes: [] },
      ],
    });
  });

  it('contentHash is sha256 of the sorted-key elementDict and ignores relationships and children', () => {
    const { records } = build();
    const root = records[0] as ElementRecord;
    expect(embeddingText(root)).toBe('{"id":"chapter_1","title":"Beginnings","uri":"/outline/chapter_1"}');
    expect(contentHash(root)).toBe(createHash('sha256').update(embeddingText(root)).digest('hex'));
    const moved = { ...root, relationships: {}, children: { scenes: [] } };
    expect(contentHash(moved)).toBe(contentHash(root));
    expect(contentHash({ ...root, properties: { title: 'Other' } })).not.toBe(contentHash(root));
    // key order does not matter
    const a = { ...root, properties: { x: 1, y: { b: 2, a: 1 } } };
    const b = { ...root, properties: { y: { a: 1, b: 2 }, x: 1 } };
    expect(contentHash(a)).toBe(contentHash(b));
  });

  it('aspectView spreads metadata next to name, description and children_keys', () => {
    expect(aspectView(outline)).toEqual({
      name: 'outline',
      description: 'plot',
      children_keys: ['scenes'],
      style: 'terse',
    });
  });
});

describe('validateAspect', () => {
  it('rejects relationships (and other reserved names) as children keys, and duplicates', () => {
    for (const key of ['relationships', 'id', 'hash']) {
      expect(() => validateAspect({ name: 'a', childrenKeys: [key], metadata: {} })).toThrow(
        expect.objectContaining({ code: 'VALIDATION_FAILED' }),
      );
    }
    expect(() => validateAspect({ name: 'a', childrenKeys: ['x', 'x'], metadata: {} })).toThrow('unique');
    expect(() => validateAspect({ name: 'a/b', childrenKeys: [], metadata: {} })).toThrow(
      expect.objectContaining({ code: 'INVALID_URI' }),
    );
  });
});
