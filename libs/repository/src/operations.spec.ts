import { isResourceError } from './errors';
import {
  aspectFromConfig,
  configFromAspect,
  describeAction,
  parseAction,
  parseOperation,
  type ResourceOperation,
  spliceBounds,
} from './operations';

describe('operation schemas', () => {
  it('parses a property operation as the LLM writes it', () => {
    expect(
      parseOperation({ target: 'property', resource_uri: '/c/x', data: { age: 3, gone: null } }),
    ).toEqual({
      target: 'property',
      resource_uri: '/c/x',
      data: { age: 3, gone: null },
    });
  });

  it('fills splice defaults: start 0, children_key null, data null; end stays implicit (= start)', () => {
    const op = parseOperation({ target: 'resource', location: { resource_uri: '/c' } }) as ResourceOperation;
    expect(op).toEqual({
      target: 'resource',
      location: { resource_uri: '/c', children_key: null },
      start: 0,
      data: null,
    });
    expect(spliceBounds(op, 0)).toEqual({ start: 0, end: 0 });
  });

  it('rejects malformed operations with VALIDATION_FAILED and the issue path', () => {
    for (const bad of [
      { target: 'nope' },
      { target: 'property', resource_uri: '/c/x' },
      { target: 'resource', location: { resource_uri: '/c' }, start: -1 },
      { target: 'resource', location: { resource_uri: '/c' }, data: [{ name: 'no id' }] },
      { target: 'resource', location: { resource_uri: '/c' }, start: 1.5 },
    ]) {
      let caught: unknown;
      try {
        parseOperation(bad);
      } catch (err) {
        caught = err;
      }
      expect(isResourceError(caught, 'VALIDATION_FAILED')).toBe(true);
    }
  });

  it('checks splice bounds against the list length', () => {
    const op = (start: number, end?: number): ResourceOperation => ({
      target: 'resource',
      location: { resource_uri: '/c', children_key: null },
      start,
      ...(end !== undefined ? { end } : {}),
      data: null,
    });
    expect(spliceBounds(op(2), 2)).toEqual({ start: 2, end: 2 });
    expect(spliceBounds(op(0, 2), 2)).toEqual({ start: 0, end: 2 });
    expect(() => spliceBounds(op(3), 2)).toThrow('out of bounds');
    expect(() => spliceBounds(op(1, 3), 2)).toThrow('out of bounds');
    expect(() => spliceBounds(op(2, 1), 2)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
  });

  it('parses reversible actions and describes them', () => {
    const add = parseAction({
      method: 'add_aspect',
      name: 'c',
      config: { description: 'people', tone: 'dark' },
    });
    expect(add).toEqual({
      method: 'add_aspect',
      name: 'c',
      config: { description: 'people', children_keys: [], tone: 'dark' },
      elements: [],
    });
    expect(describeAction(add)).toBe('add aspect c');
    expect(
      describeAction({
        method: 'update_relationships',
        source_uri: '/a/x',
        target_uri: '/b/y',
        relationships: [],
      }),
    ).toBe('remove relationships /a/x -> /b/y');
    expect(
      describeAction({
        method: 'apply',
        op: {
          target: 'resource',
          location: { resource_uri: '/c', children_key: null },
          start: 0,
          end: 1,
          data: [{ id: 'z' }],
        },
      }),
    ).toBe('remove 1 item(s) at 0 and insert z at 0 in /c');
    expect(() => parseAction({ method: 'apply' })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
  });

  it('converts aspect configs to domain aspects and back', () => {
    const aspect = aspectFromConfig('c', { description: 'd', children_keys: ['k'], schema: { a: 1 } });
    expect(aspect).toEqual({
      name: 'c',
      description: 'd',
      childrenKeys: ['k'],
      metadata: { schema: { a: 1 } },
    });
    expect(configFromAspect(aspect)).toEqual({ description: 'd', children_keys: ['k'], schema: { a: 1 } });
  });
});
