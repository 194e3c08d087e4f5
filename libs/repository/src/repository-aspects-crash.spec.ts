import type { AspectsDelta } from './aspects-delta';
import { InMemoryResourceStore } from './in-memory-store';
import { LocalEmbedder } from './local-embedder';
import { ResourceRepository } from './repository';

const clock = () => new Date('2026-01-01T00:00:00Z');

/** A store that dies (every call throws from then on) at its `crashAt`-th call. */
class CrashingStore extends InMemoryResourceStore {
  calls = 0;
  constructor(
    private readonly crashAt: number,
    private readonly method: 'updateAspects' | 'saveUndo',
    /** The call lands before the crash. */
    private readonly landed = false,
    /** Only that call fails (the store lives on). */
    private readonly transient = false,
    initial?: ConstructorParameters<typeof InMemoryResourceStore>[0],
  ) {
    super(initial);
  }
  private async tick(method: string, call: () => Promise<void>): Promise<void> {
    if (method !== this.method) return call();
    ++this.calls;
    if (this.calls < this.crashAt || (this.transient && this.calls > this.crashAt)) return call();
    if (this.landed && this.calls === this.crashAt) await call();
    throw new Error('crashed');
  }
  override updateAspects(delta: AspectsDelta): Promise<void> {
    return this.tick('updateAspects', () => super.updateAspects(delta));
  }
  override saveUndo(json: unknown): Promise<void> {
    return this.tick('saveUndo', () => super.saveUndo(json));
  }
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

type Step = (repo: ResourceRepository) => Promise<unknown>;

function steps(seed: number, count: number): Step[] {
  const random = rng(seed);
  let next = 0;
  const out: Step[] = [
    (repo) => repo.addAspect('character', {}).catch(() => undefined),
    (repo) => repo.addAspect('place', {}).catch(() => undefined),
  ];
  for (let i = 0; i < count; i++) {
    const r = random();
    const a = random();
    const b = random();
    const name = random() < 0.5 ? 'character' : 'place';
    if (r < 0.1) out.push((repo) => repo.undo().catch(() => undefined));
    else if (r < 0.15) out.push((repo) => repo.redo().catch(() => undefined));
    else if (r < 0.2) out.push((repo) => repo.removeAspect(name).catch(() => undefined));
    else if (r < 0.25) out.push((repo) => repo.addAspect(name, {}).catch(() => undefined));
    else {
      const ids = Array.from({ length: Math.floor(b * 3) }, () => `e${next++}`);
      out.push(async (repo) => {
        const start = Math.floor(a * 3);
        return repo
          .apply([
            {
              target: 'resource',
              location: { resource_uri: `/${name}`, children_key: null },
              start,
              end: start + (b < 0.3 ? 1 : 0),
              data: ids.map((id) => ({ id })),
            },
          ])
          .catch(() => undefined);
      });
    }
  }
  return out;
}

async function run(store: InMemoryResourceStore, list: Step[]): Promise<void> {
  const repo = await ResourceRepository.open(store, new LocalEmbedder(8), { clock });
  for (const step of list) await step(repo);
  await repo.close();
}

/** Which store call fails, and whether it lands before failing. */
const modes = [
  ['updateAspects', false],
  ['updateAspects', true],
  ['saveUndo', false],
  ['saveUndo', true],
] as const;

/** Runs `kept` on a fresh store and expects its aspect list in `store` (labelled by the failure, for the report). */
async function expectAspectsOf(store: InMemoryResourceStore, kept: Step[], label: object): Promise<void> {
  const expected = new InMemoryResourceStore();
  await run(expected, kept);
  expect({ ...label, aspects: store.exportState().aspects }).toEqual({
    ...label,
    aspects: expected.exportState().aspects,
  });
}

describe('ResourceRepository: the aspect list after a store call of any write fails or crashes', () => {
  it.each([1, 2, 3, 4, 5, 6, 7])(
    'seed %d: a transient failure of one store call, then a reopen',
    async (seed) => {
      const list = steps(seed, 30);
      for (const [method, landed] of modes) {
        for (let crashAt = 1; crashAt < 40; crashAt++) {
          const store = new CrashingStore(crashAt, method, landed, true);
          const repo = await ResourceRepository.open(store, new LocalEmbedder(8), { clock });
          let failedAt = -1;
          for (const [index, step] of list.entries()) {
            const before = store.calls;
            await step(repo);
            if (failedAt < 0 && before < crashAt && store.calls >= crashAt) failedAt = index;
          }
          await repo.close();
          if (failedAt < 0) break;
          const reopened = new InMemoryResourceStore({ state: store.exportState() });
          await run(reopened, []);
          // A failed history save rolls its write back (compensation); a failed store call after it is repaired.
          const kept =
            method === 'updateAspects' ? list : [...list.slice(0, failedAt), ...list.slice(failedAt + 1)];
          await expectAspectsOf(reopened, kept, { method, landed, crashAt });
        }
      }
    },
  );

  it.each([1, 2, 3, 4, 5, 6, 7])('seed %d: reopening gives the committed aspect list', async (seed) => {
    const list = steps(seed, 30);
    const reference = new InMemoryResourceStore();
    await run(reference, list);
    for (const [method, landed] of modes) {
      for (let crashAt = 1; crashAt < 40; crashAt++) {
        const store = new CrashingStore(crashAt, method, landed);
        const repo = await ResourceRepository.open(store, new LocalEmbedder(8), { clock });
        let crashedAfter = -1;
        for (const [index, step] of list.entries()) {
          await step(repo);
          if (store.calls >= crashAt) {
            crashedAfter = index;
            break;
          }
        }
        await repo.close().catch(() => undefined);
        if (crashedAfter < 0) break;
        // Reopen from what the store held at the crash and go on with the steps after the crashed one.
        const reopened = new InMemoryResourceStore({ state: store.exportState() });
        await run(reopened, list.slice(crashedAfter + 1));
        // The crashed write counts when its history document was saved (updateAspects crash), not otherwise.
        const kept =
          method === 'updateAspects' || landed
            ? list
            : [...list.slice(0, crashedAfter), ...list.slice(crashedAfter + 1)];
        await expectAspectsOf(reopened, kept, { method, landed, crashAt });
      }
    }
  });
});
