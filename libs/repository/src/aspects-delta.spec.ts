import { applyAspectsDelta, type AspectsDelta, wholeAspects } from './aspects-delta';
import { isResourceError } from './errors';
import type { AspectRecord } from './model';
import type { ReversibleAction } from './operations';
import { TreeTransaction } from './transaction';
import { ResourceTree } from './tree';

const aspect = (name: string, rootIds: string[]): AspectRecord => ({
  name,
  childrenKeys: [],
  metadata: {},
  rootIds,
});
const spliceRoots = (name: string, start: number, end: number, ids: string[]): ReversibleAction => ({
  method: 'apply',
  op: {
    target: 'resource',
    location: { resource_uri: `/${name}`, children_key: null },
    start,
    end,
    data: ids.length > 0 ? ids.map((id) => ({ id })) : null,
  },
});

/** A small deterministic generator (the cases must be the same on every run). */
function lcg(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % below;
  };
}

describe('AspectsDelta', () => {
  const before = [aspect('character', ['a', 'b', 'c', 'd']), aspect('outline', ['o1'])];
  const delta: AspectsDelta = {
    order: ['location', 'character'],
    put: [aspect('location', ['城'])],
    roots: [{ aspect: 'character', head: 1, ids: ['x', 'y'], tail: 1 }],
  };
  const after = [aspect('location', ['城']), aspect('character', ['a', 'x', 'y', 'd'])];

  it('gives the list after its write from the list before it and from the list after it', () => {
    expect(applyAspectsDelta(before, delta)).toEqual(after);
    expect(applyAspectsDelta(after, delta)).toEqual(after);
    expect(applyAspectsDelta(applyAspectsDelta(before, delta), delta)).toEqual(after);
  });

  it('copies unless told to change the lists in place, and then changes them in place', () => {
    const copy = structuredClone(before);
    applyAspectsDelta(copy, delta);
    expect(copy).toEqual(before);
    const owned = structuredClone(before);
    const list = owned[0]?.rootIds;
    expect(applyAspectsDelta(owned, delta, true)).toEqual(after);
    expect(list).toEqual(['a', 'x', 'y', 'd']);
  });

  it('refuses a change that does not fit, with CONFLICT, changing nothing', () => {
    const owned = structuredClone(before);
    const misfits: AspectsDelta[] = [
      { order: ['character'], put: [], roots: [{ aspect: 'character', head: 3, ids: [], tail: 2 }] },
      { order: ['character'], put: [], roots: [{ aspect: 'nowhere', head: 0, ids: ['z'], tail: 0 }] },
      { order: ['character', 'nowhere'], put: [], roots: [] },
      {
        order: ['character'],
        put: [],
        roots: [
          { aspect: 'character', head: 0, ids: [], tail: 0 },
          { aspect: 'character', head: 0, ids: [], tail: 0 },
        ],
      },
    ];
    for (const misfit of misfits) {
      let caught: unknown;
      try {
        applyAspectsDelta(owned, misfit, true);
      } catch (err) {
        caught = err;
      }
      expect(isResourceError(caught, 'CONFLICT')).toBe(true);
    }
    expect(owned).toEqual(before);
  });

  it('sets the whole list with wholeAspects', () => {
    expect(applyAspectsDelta(before, wholeAspects(after))).toEqual(after);
  });

  it("describes any sequence of a write's root splices, aspect creations and removals", () => {
    const random = lcg(7);
    for (let round = 0; round < 60; round++) {
      const tree = new ResourceTree();
      const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
      tree.addAspect(
        { name: 'character', childrenKeys: [], metadata: {} },
        ids('c', 40).map((id) => ({ id })),
      );
      tree.addAspect(
        { name: 'outline', childrenKeys: [], metadata: {} },
        ids('o', 5).map((id) => ({ id })),
      );
      const stored = tree.aspectRecords();
      const tx = new TreeTransaction(tree);
      const steps = 1 + random(4);
      for (let step = 0; step < steps; step++) {
        const name = random(5) === 0 ? 'outline' : 'character';
        const found = tree.find(`/${name}`);
        if (found?.kind !== 'aspect') {
          tx.execute({ method: 'add_aspect', name, config: { children_keys: [] }, elements: [] });
          continue;
        }
        if (random(12) === 0) {
          tx.execute({ method: 'remove_aspect', name });
          continue;
        }
        const length = found.rootIds.length;
        const start = random(length + 1);
        const end = start + random(Math.min(3, length - start) + 1);
        tx.execute(spliceRoots(name, start, end, ids(`n${round}_${step}_`, random(4))));
      }
      const change = tx.aspectsDelta();
      expect(change).not.toBeNull();
      const result = tree.aspectRecords();
      expect(applyAspectsDelta(stored, change as AspectsDelta)).toEqual(result);
      expect(applyAspectsDelta(result, change as AspectsDelta)).toEqual(result);
    }
  });
});
