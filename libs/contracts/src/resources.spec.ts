import {
  ApplyRequest,
  ElementInput,
  FindReply,
  ResourceElement,
  ResourceOperation,
  SegmentsReply,
  UndoRedoReply,
  describeIssues,
  replyOf,
} from './index';

describe('resource contracts', () => {
  it('accepts a deep element tree and rejects a bad id three levels down', () => {
    const leaf = {
      id: 'baker_street',
      uri: '/location/europe/london/baker_street',
      aspect: 'location',
      relationships: {},
      properties: {},
      children: {},
    };
    const tree = {
      id: 'europe',
      uri: '/location/europe',
      aspect: 'location',
      relationships: { '/character/余归': ['birthplace'] },
      properties: { name: 'Europe' },
      children: {
        cities: [{ ...leaf, id: 'london', uri: '/location/europe/london', children: { streets: [leaf] } }],
      },
    };
    expect(ResourceElement.safeParse(tree).success).toBe(true);
    const bad = structuredClone(tree);
    bad.children.cities[0]!.children.streets[0]!.uri = '/location//x';
    const r = ResourceElement.safeParse(bad);
    expect(r.success || describeIssues(r.error)).toMatch(
      /^children\.cities\[0\]\.children\.streets\[0\]\.uri: /,
    );
  });

  it('rejects relationships keyed by something that is not a URI', () => {
    const r = ElementInput.safeParse({ id: 'a', relationships: { 'not a uri': ['x'] } });
    expect(r.success).toBe(false);
  });

  it('parses every find reply kind inside a Reply', () => {
    const Reply = replyOf(FindReply);
    expect(Reply.safeParse({ ok: true, data: { kind: 'root', uri: '/', aspects: [] } }).success).toBe(true);
    expect(
      Reply.safeParse({
        ok: true,
        data: {
          kind: 'aspect',
          uri: '/character',
          aspect: { name: 'character', childrenKeys: [], metadata: {} },
          rootIds: ['余归'],
        },
      }).success,
    ).toBe(true);
    expect(
      Reply.safeParse({
        ok: false,
        error: { code: 'NOT_FOUND', message: '/character/无名 not found', retryable: false },
      }).success,
    ).toBe(true);
  });

  it('parses segment data for root, aspect and element', () => {
    const r = SegmentsReply.safeParse({
      segments: [
        { kind: 'root', uri: '/', aspects: ['character'] },
        {
          kind: 'aspect',
          uri: '/character',
          name: 'character',
          metadata: { description: '人物' },
          excludedProperties: [],
          rootIds: ['余归'],
        },
        {
          kind: 'element',
          uri: '/character/余归',
          id: '余归',
          aspect: 'character',
          properties: { name: '余归' },
          excludedProperties: ['appearance'],
          childIds: { memories: ['初入山门'] },
          relationships: { '/faction/青云宗': ['内门弟子'] },
        },
      ],
      missing: ['/character/林清'],
    });
    expect(r.success).toBe(true);
  });

  it('round-trips an aspect removal inverse carrying its elements', () => {
    const inverse = ResourceOperation.parse({
      type: 'aspect.create',
      name: 'faction',
      childrenKeys: ['members'],
      metadata: {},
      elements: [{ id: '青云宗', properties: { name: '青云宗' }, children: { members: [{ id: '余归' }] } }],
    });
    expect(inverse.type).toBe('aspect.create');
  });

  it('caps an apply at 100 operations', () => {
    const op = { type: 'aspect.remove', name: 'x' };
    expect(ApplyRequest.safeParse({ operations: Array.from({ length: 100 }, () => op) }).success).toBe(true);
    const r = ApplyRequest.safeParse({ operations: Array.from({ length: 101 }, () => op) });
    expect(r.success || describeIssues(r.error)).toMatch(/^operations: /);
  });

  it('distinguishes applied and empty undo replies', () => {
    expect(UndoRedoReply.parse({ status: 'empty', action: 'undo' })).toEqual({
      status: 'empty',
      action: 'undo',
    });
    expect(
      UndoRedoReply.safeParse({
        status: 'applied',
        action: 'redo',
        count: 0,
        descriptions: [],
        changedUris: [],
      }).success,
    ).toBe(false);
  });
});
