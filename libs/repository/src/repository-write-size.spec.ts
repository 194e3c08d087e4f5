import type { AspectsDelta } from './aspects-delta';
import { InMemoryResourceStore } from './in-memory-store';
import { LocalEmbedder } from './local-embedder';
import { ResourceRepository } from './repository';
import type { AspectRecord, ElementRecord } from './model';

const clock = () => new Date('2026-01-01T00:00:00Z');
const root = { resource_uri: '/character', children_key: null };
/** Fixed-width ids, so that lists of different lengths differ only in how many ids they hold. */
const id = (n: number) => `c${String(n).padStart(6, '0')}`;
const elements = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ id: id(from + i), name: `Person ${from + i}` }));

/** A store that keeps the JSON size of the history document and of the aspect change of the last write. */
class MeasuringStore extends InMemoryResourceStore {
  historySize = 0;
  aspectsSize = 0;
  override async saveUndo(json: unknown): Promise<void> {
    this.historySize = JSON.stringify(json).length;
    return super.saveUndo(json);
  }
  override async updateAspects(delta: AspectsDelta): Promise<void> {
    this.aspectsSize = JSON.stringify(delta).length;
    return super.updateAspects(delta);
  }
}

/** What one write of `ops` saves on an aspect that already holds `roots` root elements (inserted in one write). */
async function writeSizes(roots: number, ops: (roots: number) => unknown[]) {
  const store = new MeasuringStore();
  const repo = await ResourceRepository.open(store, new LocalEmbedder(8), { clock });
  await repo.addAspect('character', {});
  await repo.apply([{ target: 'resource', location: root, start: 0, data: elements(0, roots) }]);
  await repo.apply(ops(roots));
  const sizes = { history: store.historySize, aspects: store.aspectsSize };
  await repo.close();
  return sizes;
}

describe('ResourceRepository: what a write saves does not grow with the root lists', () => {
  const cases: [string, (roots: number) => unknown[]][] = [
    [
      'an append',
      (roots) => [{ target: 'resource', location: root, start: roots, data: elements(roots, 3) }],
    ],
    ['a removal at the start', () => [{ target: 'resource', location: root, start: 0, end: 1, data: null }]],
    [
      'a replacement in the middle',
      (roots) => [
        {
          target: 'resource',
          location: root,
          start: roots / 2,
          end: roots / 2 + 1,
          data: elements(900_000, 1),
        },
      ],
    ],
  ];
  it.each(cases)('%s saves as much on 20 roots as on 4000', async (_name, ops) => {
    const small = await writeSizes(20, ops);
    const large = await writeSizes(4000, ops);
    // A few characters for longer numbers (positions, counts); the whole list would be 4000 × 10 characters.
    expect(large.history - small.history).toBeLessThan(100);
    expect(large.aspects - small.aspects).toBeLessThan(20);
    expect(large.aspects).toBeGreaterThan(0);
  });
});

describe('ResourceRepository: journals saved before aspect deltas', () => {
  const aspect = (rootIds: string[]): AspectRecord => ({
    name: 'character',
    childrenKeys: [],
    metadata: {},
    rootIds,
  });
  const record = (key: string): ElementRecord => ({
    uri: `/character/${key}`,
    id: key,
    aspect: 'character',
    parentUri: null,
    properties: { name: key },
    relationships: {},
    children: {},
  });

  it('completes a write whose old journal holds the whole aspect list, once', async () => {
    // The process died after the history document of a write that added /character/b: the store lacks it.
    const journal = { records: [record('b')], deleted: [], aspects: [aspect(['a', 'b'])] };
    const store = new InMemoryResourceStore({
      state: {
        aspects: [aspect(['a'])],
        records: [{ record: record('a'), hash: 'stale' }],
        undo: { schemaVersion: 1, undo: [], redo: [], applied: [], journal },
        backlog: null,
      },
    });
    const repo = await ResourceRepository.open(store, new LocalEmbedder(8), { clock });
    expect(repo.find('/character')).toMatchObject({ rootIds: ['a', 'b'] });
    expect(store.exportState().aspects).toEqual([aspect(['a', 'b'])]);
    expect(store.exportState().records.map((stored) => stored.record.uri)).toEqual([
      '/character/a',
      '/character/b',
    ]);
    await repo.apply([{ target: 'resource', location: root, start: 2, data: [{ id: 'c' }] }]);
    await repo.close();
    const again = await ResourceRepository.open(
      new InMemoryResourceStore({ state: store.exportState(), vectors: store.exportVectors() }),
      new LocalEmbedder(8),
    );
    expect(again.find('/character')).toMatchObject({ rootIds: ['a', 'b', 'c'] });
  });
});
