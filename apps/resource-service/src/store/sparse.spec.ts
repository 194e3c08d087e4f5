import { sparseTerms, sparseVector, termIndex } from './sparse';

describe('sparseTerms', () => {
  it('lowercases word tokens and drops punctuation and operators', () => {
    expect(sparseTerms(`Azure SECT, it's "x" OR 1=1 %*)`)).toEqual([
      'azure',
      'sect',
      'it',
      's',
      'x',
      'or',
      '1',
      '1',
    ]);
  });

  it('splits CJK runs into character bigrams, single characters kept', () => {
    expect(sparseTerms('余归')).toEqual(['余归']);
    expect(sparseTerms('青云宗的弟子')).toEqual(['青云', '云宗', '宗的', '的弟', '弟子']);
    expect(sparseTerms('林')).toEqual(['林']);
    expect(sparseTerms('name:余归 age')).toEqual(['name', '余归', 'age']);
  });

  it('normalises full-width characters (NFKC)', () => {
    expect(sparseTerms('ＡＢＣ１２')).toEqual(['abc12']);
  });

  it('gives nothing for an empty or punctuation-only text', () => {
    expect(sparseTerms('')).toEqual([]);
    expect(sparseTerms(`'"%*()`)).toEqual([]);
  });
});

describe('termIndex', () => {
  it('is a stable unsigned 32-bit FNV-1a hash of the UTF-8 bytes', () => {
    expect(termIndex('')).toBe(0x811c9dc5);
    expect(termIndex('a')).toBe(0xe40c292c);
    expect(termIndex('余归')).toBe(termIndex('余归'));
    expect(termIndex('余归')).not.toBe(termIndex('归余'));
    expect(Number.isInteger(termIndex('余归')) && termIndex('余归') >= 0 && termIndex('余归') < 2 ** 32).toBe(
      true,
    );
  });
});

describe('sparseVector', () => {
  it('counts term frequencies under sorted unique indices', () => {
    const vector = sparseVector('sect Sect 余归 sect');
    const sect = termIndex('sect');
    const yu = termIndex('余归');
    expect(vector.indices).toEqual([sect, yu].sort((a, b) => a - b));
    expect(vector.values[vector.indices.indexOf(sect)]).toBe(3);
    expect(vector.values[vector.indices.indexOf(yu)]).toBe(1);
  });

  it('is empty for text without terms', () => {
    expect(sparseVector('%%%')).toEqual({ indices: [], values: [] });
  });
});
