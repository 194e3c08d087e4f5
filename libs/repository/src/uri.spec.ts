import { isResourceError } from './errors';
import {
  aspectOf,
  assertValidId,
  childUri,
  idProblem,
  isAncestor,
  isValidUri,
  lastSegment,
  MAX_DEPTH,
  MAX_URI_LENGTH,
  parentUri,
  parseUri,
} from './uri';

describe('parseUri', () => {
  it('parses root, aspect, element and deeper URIs', () => {
    expect(parseUri('/')).toEqual({ kind: 'root', uri: '/' });
    expect(parseUri('/character')).toEqual({ kind: 'aspect', uri: '/character', aspect: 'character' });
    expect(parseUri('/character/yu_gui')).toEqual({
      kind: 'element',
      uri: '/character/yu_gui',
      aspect: 'character',
      ids: ['yu_gui'],
    });
    expect(parseUri('/location/europe/london/baker_street')).toMatchObject({
      kind: 'element',
      aspect: 'location',
      ids: ['europe', 'london', 'baker_street'],
    });
  });

  it('accepts Chinese ids', () => {
    expect(parseUri('/character/余归')).toMatchObject({ kind: 'element', ids: ['余归'] });
  });

  it.each([
    ['', 'must start'],
    ['character', 'must start'],
    ['//', 'is empty'],
    ['/character//x', 'is empty'],
    ['/character/', 'is empty'],
    ['/character/../secret', "contains '..'"],
    ['/character/a..b', "contains '..'"],
    ['/character/.', "is '.'"],
    ['/character/ padded', 'whitespace'],
    ['/character/new\nline', 'control character'],
    [`/character/${'x'.repeat(129)}`, 'longer than 128'],
  ])('rejects %j with INVALID_URI (%s)', (uri, reason) => {
    let caught: unknown;
    try {
      parseUri(uri);
    } catch (err) {
      caught = err;
    }
    expect(isResourceError(caught, 'INVALID_URI')).toBe(true);
    expect((caught as Error).message).toContain(reason);
    expect(isValidUri(uri)).toBe(false);
  });

  it('counts the id length in characters, not UTF-16 units', () => {
    expect(idProblem('余'.repeat(128))).toBeNull();
    expect(idProblem('😀'.repeat(128))).toBeNull();
    expect(idProblem('😀'.repeat(129))).toContain('longer');
  });
});

describe('uri helpers', () => {
  it('parentUri walks up to the aspect, then the root, then null', () => {
    expect(parentUri('/a/b/c')).toBe('/a/b');
    expect(parentUri('/a/b')).toBe('/a');
    expect(parentUri('/a')).toBe('/');
    expect(parentUri('/')).toBeNull();
  });

  it('childUri joins and validates', () => {
    expect(childUri('/a', 'b')).toBe('/a/b');
    expect(childUri('/', 'a')).toBe('/a');
    expect(() => childUri('/a', 'x/y')).toThrow("contains '/'");
    expect(() => childUri('/a', '')).toThrow('is empty');
    expect(() => assertValidId('..')).toThrow(expect.objectContaining({ code: 'INVALID_URI' }));
  });

  it('childUri refuses a child the bus could not carry or that nests too deep', () => {
    const long = `/a/${Array.from({ length: 10 }, () => 'x'.repeat(100)).join('/')}`; // 1012 characters
    expect(childUri(long, 'abcdefghijk')).toHaveLength(MAX_URI_LENGTH);
    expect(() => childUri(long, 'abcdefghijkl')).toThrow(
      expect.objectContaining({ code: 'INVALID_URI', message: expect.stringContaining('longer than 1024') }),
    );
    const deepest = `/a/${Array.from({ length: MAX_DEPTH - 1 }, () => 'x').join('/')}`;
    expect(childUri(deepest, 'y').split('/')).toHaveLength(MAX_DEPTH + 2); // '', aspect, 64 ids
    expect(() => childUri(`${deepest}/y`, 'z')).toThrow(
      expect.objectContaining({ code: 'INVALID_URI', message: expect.stringContaining('64 levels') }),
    );
  });

  it('aspectOf and lastSegment', () => {
    expect(aspectOf('/')).toBeNull();
    expect(aspectOf('/a')).toBe('a');
    expect(aspectOf('/a/b/c')).toBe('a');
    expect(lastSegment('/a/b/c')).toBe('c');
    expect(lastSegment('/a')).toBe('a');
    expect(lastSegment('/')).toBeNull();
  });

  it('isAncestor is strict and segment-aware', () => {
    expect(isAncestor('/', '/a')).toBe(true);
    expect(isAncestor('/a', '/a/b/c')).toBe(true);
    expect(isAncestor('/a/b', '/a/b')).toBe(false);
    expect(isAncestor('/a/b', '/a/bc')).toBe(false);
    expect(isAncestor('/', '/')).toBe(false);
  });
});
