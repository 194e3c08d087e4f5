import { cosine } from '../scoring';
import { VectorIndex } from './vector-index';

/** A deterministic pseudo-random generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What a full exact scan returns (the store's ranking before the index). */
function scan(
  rows: Map<string, { vector: number[]; group: string }>,
  query: number[],
  limit: number,
  group?: string,
) {
  return [...rows]
    .filter(([, row]) => (group === undefined || row.group === group) && row.vector.some((x) => x !== 0))
    .map(([id, row]) => ({ id, score: cosine(query, row.vector) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, limit)
    .map((hit) => hit.id);
}

describe('VectorIndex', () => {
  it('ranks as an exact cosine scan does, with groups, replacements and deletes', () => {
    const next = random(7);
    const vec = (d: number) => Array.from({ length: d }, () => next() * 2 - 1);
    const index = new VectorIndex();
    const rows = new Map<string, { vector: number[]; group: string }>();
    for (let i = 0; i < 600; i++) {
      const id = `e${String(i).padStart(4, '0')}`;
      const row = { vector: vec(16), group: i % 3 === 0 ? 'a' : 'b' };
      rows.set(id, row);
      index.set(id, row.vector, row.group);
    }
    // Duplicates (equal scores: ties by id), a zero vector, replacements and deletes.
    const twin = vec(16);
    for (const id of ['d3', 'd1', 'd2']) {
      rows.set(id, { vector: twin, group: 'a' });
      index.set(id, twin, 'a');
    }
    rows.set('zero', { vector: new Array(16).fill(0), group: 'a' });
    index.set('zero', new Array(16).fill(0), 'a');
    for (let i = 0; i < 600; i += 5) {
      const id = `e${String(i).padStart(4, '0')}`;
      if (i % 10 === 0) {
        rows.delete(id);
        index.delete(id);
      } else {
        const row = { vector: vec(16), group: 'a' };
        rows.set(id, row);
        index.set(id, row.vector, row.group);
      }
    }
    expect(index.size).toBe(rows.size - 1);
    for (let q = 0; q < 40; q++) {
      const query = q === 0 ? twin : vec(16);
      for (const group of [undefined, 'a', 'b', 'none']) {
        expect(index.search(query, 50, group)).toEqual(scan(rows, query, 50, group));
      }
    }
    expect(index.search(twin, 3, 'a')).toEqual(['d1', 'd2', 'd3']);
  });

  it('keeps each vector size apart: a row is found by queries of its size, whatever size was written after it', () => {
    // A store reopened in the middle of a re-embedding to another size holds both sizes, in any order.
    const index = new VectorIndex();
    index.set('a', [1, 0], 'g');
    index.set('b', [1, 0, 0], 'g');
    index.set('c', [0, 1], 'g');
    expect(index.size).toBe(3);
    expect(index.search([1, 0], 10)).toEqual(['a', 'c']);
    expect(index.search([1, 0, 0], 10)).toEqual(['b']);
    index.set('b', [1, 1], 'g');
    expect(index.search([1, 0], 10)).toEqual(['a', 'b', 'c']);
    expect(index.search([1, 0, 0], 10)).toEqual([]);
    index.delete('a');
    expect(index.search([1, 0], 10, 'g')).toEqual(['b', 'c']);
    expect(index.size).toBe(2);
  });

  it('returns nothing for a zero query, a wrong-sized query or a zero limit', () => {
    const index = new VectorIndex();
    index.set('x', [1, 2], 'a');
    expect(index.search([0, 0], 10)).toEqual([]);
    expect(index.search([1, 2, 3], 10)).toEqual([]);
    expect(index.search([1, 2], 0)).toEqual([]);
  });
});
