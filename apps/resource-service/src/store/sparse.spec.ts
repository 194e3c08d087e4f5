import { sparseVector, termIndex } from './sparse';

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
    const vector = sparseVector(['sect', 'sect', '余归', 'sect']);
    const sect = termIndex('sect');
    const yu = termIndex('余归');
    expect(vector.indices).toEqual([sect, yu].sort((a, b) => a - b));
    expect(vector.values[vector.indices.indexOf(sect)]).toBe(3);
    expect(vector.values[vector.indices.indexOf(yu)]).toBe(1);
  });

  it('is empty without terms', () => {
    expect(sparseVector([])).toEqual({ indices: [], values: [] });
  });
});
