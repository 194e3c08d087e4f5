import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AspectsDelta } from './aspects-delta';
import { isResourceError } from './errors';
import type { HistoryJson } from './history';
import { InMemoryResourceStore } from './in-memory-store';
import { LocalEmbedder } from './local-embedder';
import type { ReversibleAction } from './operations';
import { ResourceRepository } from './repository';
import type { ExecuteOutcome, RepositoryOptions } from './repository-types';
import type { Embedder, UpsertItem } from './store.port';

const root = (aspect: string) => ({ resource_uri: `/${aspect}`, children_key: null });

/** Removes the first root element of `character`: applied twice, it would remove a second, different element. */
const removeFirst: ReversibleAction = {
  method: 'apply',
  op: { target: 'resource', location: root('character'), start: 0, end: 1, data: null },
};
const setMood = (mood: string): ReversibleAction => ({
  method: 'apply',
  op: { target: 'property', resource_uri: '/character/lin', data: { mood } },
});

/** What a caller would answer (the controller builds the wire reply the same way, from the outcome). */
const replyOf = (outcome: ExecuteOutcome) => ({ uris: outcome.uris, inverses: outcome.inverses });
const once = (key: string) => ({ key, reply: replyOf });

/** A store that counts its writes and dies (every later call fails) right after it saved a history document, once armed. */
class DyingStore extends InMemoryResourceStore {
  armed = false;
  dead = false;
  failNextHistory = false;
  writes = 0;
  override async saveUndo(json: unknown): Promise<void> {
    this.check();
    if (this.failNextHistory) {
      this.failNextHistory = false;
      throw new Error('disk full');
    }
    await super.saveUndo(json);
    if (this.armed) this.dead = true;
  }
  override async upsert(items: readonly UpsertItem[]): Promise<void> {
    this.check();
    return super.upsert(items);
  }
  override async delete(uris: readonly string[]): Promise<void> {
    this.check();
    return super.delete(uris);
  }
  override async updateAspects(delta: AspectsDelta): Promise<void> {
    this.check();
    return super.updateAspects(delta);
  }
  private check(): void {
    if (this.dead) throw new Error('the process died');
    this.writes += 1;
  }
}

const embedder = (): Embedder => new LocalEmbedder(16);

async function setup(options: RepositoryOptions = {}) {
  const store = new DyingStore();
  const repo = await ResourceRepository.open(store, embedder(), options);
  await repo.addAspect('character', {});
  await repo.apply([
    {
      target: 'resource',
      location: root('character'),
      data: [
        { id: 'yu_gui', name: '余归' },
        { id: 'lin', name: 'Lin' },
        { id: 'mo', name: 'Mo' },
      ],
    },
  ]);
  return { store, repo };
}

/** A new repository over what `store` persisted (a process restart). */
async function restart(store: InMemoryResourceStore, options: RepositoryOptions = {}) {
  const reopened = new InMemoryResourceStore({ state: store.exportState(), vectors: store.exportVectors() });
  return { store: reopened, repo: await ResourceRepository.open(reopened, embedder(), options) };
}

const rootIds = (repo: ResourceRepository) =>
  (repo.find('/character') as { rootIds: string[] } | null)?.rootIds ?? [];
const descriptions = (repo: ResourceRepository) => repo.recentActions(100).map((entry) => entry.description);
const historyOf = (store: InMemoryResourceStore) => store.exportState().undo as HistoryJson;

describe('ResourceRepository.executeOnce: idempotent writes', () => {
  it('applies once per key and answers a retry with the first reply, whatever its actions', async () => {
    const { repo } = await setup();
    const first = await repo.executeOnce([removeFirst, setMood('calm')], once('inv-1'));
    expect(first.replayed).toBe(false);
    const retry = await repo.executeOnce([removeFirst, setMood('calm')], once('inv-1'));
    const other = await repo.executeOnce([setMood('angry')], once('inv-1'));
    expect(retry).toEqual({ replayed: true, reply: JSON.parse(JSON.stringify(first.reply)) });
    expect(other).toEqual(retry);
    expect(rootIds(repo)).toEqual(['lin', 'mo']);
    expect(repo.find('/character/lin')).toMatchObject({ record: { properties: { mood: 'calm' } } });
    expect(descriptions(repo).filter((d) => d.startsWith('insert yu_gui'))).toHaveLength(1);
  });

  it('serialises concurrent calls with one key: the first applies, the others get its reply', async () => {
    const { repo } = await setup();
    const results = await Promise.all(
      Array.from({ length: 5 }, () => repo.executeOnce([removeFirst], once('inv-race'))),
    );
    expect(results.filter((result) => !result.replayed)).toHaveLength(1);
    expect(rootIds(repo)).toEqual(['lin', 'mo']);
  });

  it('remembers the key across a restart: the retry applies nothing and gets the same reply', async () => {
    const { store, repo } = await setup();
    const first = await repo.executeOnce([removeFirst, setMood('calm')], once('inv-1'), { group: 'inv-1' });
    const historyBefore = repo.recentActions(100);
    const snapshotBefore = repo.snapshot();
    await repo.close();

    const { repo: reopened } = await restart(store);
    const retry = await reopened.executeOnce([removeFirst, setMood('calm')], once('inv-1'), {
      group: 'inv-1',
    });
    expect(retry).toEqual({ replayed: true, reply: JSON.parse(JSON.stringify(first.reply)) });
    expect(reopened.snapshot()).toEqual(snapshotBefore);
    expect(rootIds(reopened)).toEqual(['lin', 'mo']);
    expect(reopened.recentActions(100)).toEqual(historyBefore);
    expect(reopened.recentActions(100).filter((entry) => entry.group === 'inv-1')).toHaveLength(2);
  });

  it('keeps an undone write undone when its key is retried, before and after a restart', async () => {
    const { store, repo } = await setup();
    const first = await repo.executeOnce([removeFirst], once('inv-1'));
    expect((await repo.undo()).performed).toBe(true);
    expect(rootIds(repo)).toEqual(['yu_gui', 'lin', 'mo']);
    const retry = await repo.executeOnce([removeFirst], once('inv-1'));
    expect(retry).toMatchObject({ replayed: true, reply: JSON.parse(JSON.stringify(first.reply)) });
    expect(rootIds(repo)).toEqual(['yu_gui', 'lin', 'mo']);
    // The undone write can still be redone by the user (the retry did not clear the redo stack).
    expect(repo.recentActions(5, 'redo')).toHaveLength(1);
    await repo.close();
    const { repo: reopened } = await restart(store);
    expect(await reopened.executeOnce([removeFirst], once('inv-1'))).toEqual(retry);
    expect(rootIds(reopened)).toEqual(['yu_gui', 'lin', 'mo']);
    // A new intent carries a new key and applies.
    expect((await reopened.executeOnce([removeFirst], once('inv-2'))).replayed).toBe(false);
    expect(rootIds(reopened)).toEqual(['lin', 'mo']);
  });

  it('records no key for a failed write, so its retry runs again', async () => {
    const { store, repo } = await setup();
    const missing: ReversibleAction = {
      method: 'apply',
      op: { target: 'property', resource_uri: '/character/nobody', data: { x: 1 } },
    };
    const rejected = await repo.executeOnce([removeFirst, missing], once('inv-1')).catch((err) => err);
    expect(isResourceError(rejected, 'NOT_FOUND')).toBe(true);
    store.failNextHistory = true;
    const unavailable = await repo.executeOnce([removeFirst], once('inv-1')).catch((err) => err);
    expect(isResourceError(unavailable, 'UNAVAILABLE')).toBe(true);
    expect(rootIds(repo)).toEqual(['yu_gui', 'lin', 'mo']);
    expect(historyOf(store).applied).toEqual([]);
    expect((await repo.executeOnce([removeFirst], once('inv-1'))).replayed).toBe(false);
    expect(rootIds(repo)).toEqual(['lin', 'mo']);
    expect(historyOf(store).applied?.map((entry) => entry.key)).toEqual(['inv-1']);
  });

  it('answers a retried key from its record even when the retry carries actions it could not apply', async () => {
    const { repo } = await setup();
    const first = await repo.executeOnce([removeFirst], once('inv-9'));
    expect(first.replayed).toBe(false);
    const retry = await repo.executeOnce([{ method: 'nonsense' }], once('inv-9'));
    expect(retry).toMatchObject({ replayed: true, reply: first.reply });
    await expect(repo.executeOnce([{ method: 'nonsense' }], once('inv-10'))).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('completes a write whose process died after its history document: applied once, key recorded', async () => {
    const { store, repo } = await setup();
    store.armed = true;
    // Committed with its history document: the write stands, its store work is left to finish.
    const died = await repo.executeOnce([removeFirst, setMood('calm')], once('inv-1'), { group: 'inv-1' });
    expect(died.replayed).toBe(false);
    expect(repo.repairPending).toBe(true);
    // The store holds the history document with the journal, not the records.
    expect(store.exportState().records.map((stored) => stored.record.uri)).toContain('/character/yu_gui');
    expect(historyOf(store).applied?.map((entry) => entry.key)).toEqual(['inv-1']);

    const { store: reopenedStore, repo: reopened } = await restart(store);
    expect(rootIds(reopened)).toEqual(['lin', 'mo']);
    expect(reopened.find('/character/yu_gui')).toBeNull();
    expect(
      reopenedStore
        .exportState()
        .records.map((stored) => stored.record.uri)
        .sort(),
    ).toEqual(['/character/lin', '/character/mo']);
    expect(
      reopenedStore.exportState().records.find((s) => s.record.uri === '/character/lin')?.record,
    ).toMatchObject({ properties: { name: 'Lin', mood: 'calm' } });
    expect(reopenedStore.exportState().aspects[0]?.rootIds).toEqual(['lin', 'mo']);
    const retry = await reopened.executeOnce([removeFirst, setMood('calm')], once('inv-1'));
    expect(retry.replayed).toBe(true);
    expect(rootIds(reopened)).toEqual(['lin', 'mo']);
    // The write is whole: its undo entries came with it.
    expect(await reopened.undo()).toMatchObject({ performed: true, count: 2 });
    expect(rootIds(reopened)).toEqual(['yu_gui', 'lin', 'mo']);
    expect((await reopened.search('余归', { limit: 1 }))[0]?.uri).toBe('/character/yu_gui');
  });

  it('opening a store that holds all of the journaled write writes nothing', async () => {
    const { store, repo } = await setup();
    await repo.executeOnce([removeFirst], once('inv-1'));
    await repo.close();
    const reopened = new DyingStore({ state: store.exportState(), vectors: store.exportVectors() });
    const repo2 = await ResourceRepository.open(reopened, embedder());
    expect(rootIds(repo2)).toEqual(['lin', 'mo']);
    expect(reopened.writes).toBe(0);
  });

  it('persists at most `appliedKeys.max` keys: older keys are forgotten and apply again after a restart', async () => {
    const options: RepositoryOptions = { appliedKeys: { max: 3, protectedMs: 0 } };
    const { store, repo } = await setup(options);
    for (let n = 1; n <= 5; n++) await repo.executeOnce([setMood(`m${n}`)], once(`inv-${n}`));
    expect(historyOf(store).applied?.map((entry) => entry.key)).toEqual(['inv-3', 'inv-4', 'inv-5']);
    await repo.close();
    const { repo: reopened } = await restart(store, options);
    for (const n of [3, 4, 5]) {
      expect((await reopened.executeOnce([setMood('again')], once(`inv-${n}`))).replayed).toBe(true);
    }
    expect(reopened.find('/character/lin')).toMatchObject({ record: { properties: { mood: 'm5' } } });
    expect((await reopened.executeOnce([setMood('again')], once('inv-1'))).replayed).toBe(false);
    expect(reopened.find('/character/lin')).toMatchObject({ record: { properties: { mood: 'again' } } });
  });

  it('forgets keys past `appliedKeys.maxAgeMs`', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const options: RepositoryOptions = { appliedKeys: { maxAgeMs: 60_000 }, clock: () => new Date(now) };
    const { store, repo } = await setup(options);
    await repo.executeOnce([setMood('m1')], once('inv-1'));
    now += 60_001;
    await repo.close();
    const { repo: reopened } = await restart(store, options);
    expect((await reopened.executeOnce([setMood('m2')], once('inv-1'))).replayed).toBe(false);
    expect(reopened.find('/character/lin')).toMatchObject({ record: { properties: { mood: 'm2' } } });
  });

  it('loads a history document saved before keys and journals existed (read-only fixture)', async () => {
    const fixture = JSON.parse(
      readFileSync(path.join(__dirname, '__fixtures__', 'history-v1-undo-only.json'), 'utf8'),
    ) as { aspects: never; records: never; undo: unknown };
    const store = new InMemoryResourceStore({
      state: { aspects: fixture.aspects, records: fixture.records, undo: fixture.undo, backlog: null },
    });
    const repo = await ResourceRepository.open(store, embedder());
    expect(rootIds(repo)).toEqual(['lin']);
    expect(repo.recentActions(10).map((entry) => entry.description)).toEqual([
      'remove 1 item(s) at 0 in /character',
      'remove aspect character',
    ]);
    expect((await repo.executeOnce([setMood('calm')], once('inv-1'))).replayed).toBe(false);
    expect(historyOf(store)).toMatchObject({ schemaVersion: 1, applied: [{ key: 'inv-1' }] });
    expect(await repo.undo()).toMatchObject({ performed: true });
    expect(await repo.undo()).toMatchObject({ performed: true });
    expect(rootIds(repo)).toEqual([]);
  });

  it('refuses a malformed history document', async () => {
    const store = new InMemoryResourceStore({
      state: {
        aspects: [],
        records: [],
        undo: { schemaVersion: 1, undo: [], redo: [], applied: [{}] },
        backlog: null,
      },
    });
    await expect(ResourceRepository.open(store, embedder())).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });
});
