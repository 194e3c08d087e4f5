import { cosine } from '../scoring';
import { VectorIndex } from './vector-index';

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

it('fuzz', () => {
  for (let seed = 1; seed < 300; seed++) {
    const r = rng(seed);
    const d = 1 + Math.floor(r() * 4);
    const idx = new VectorIndex();
    const ref = new Map<string, { v: number[]; g: string }>();
    const pool = [[1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 0, 0], [2, 2, 0, 0], [0, 0, 0, 0], [-1, 0, 0, 0]];
    for (let step = 0; step < 200; step++) {
      const id = `e${Math.floor(r() * 30)}`;
      if (r() < 0.3) {
        idx.delete(id);
        ref.delete(id);
      } else {
        const base = pool[Math.floor(r() * pool.length)]!.slice(0, d);
        const v = r() < 0.5 ? base : base.map(() => Math.round(r() * 4 - 2));
        const g = r() < 0.5 ? 'a' : 'b';
        idx.set(id, v, g);
        ref.set(id, { v, g });
      }
      const q = Array.from({ length: d }, () => Math.round(r() * 4 - 2));
      const limit = 1 + Math.floor(r() * 5);
      const group = r() < 0.5 ? undefined : 'a';
      const want = [...ref.entries()]
        .filter(([, e]) => e.v.some((x) => x !== 0) && (group === undefined || e.g === group))
        .map(([id, e]) => ({ id, s: cosine(q, e.v) }))
        .sort((a, b) => b.s - a.s || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .slice(0, limit)
        .map((x) => x.id);
      const got = q.some((x) => x !== 0) ? idx.search(q, limit, group) : [];
      const w = q.some((x) => x !== 0) ? want : [];
      if (JSON.stringify(got) !== JSON.stringify(w)) throw new Error(`seed ${seed} step ${step}: ${JSON.stringify({ got, w, q, limit, group })}`);
    }
  }
});
