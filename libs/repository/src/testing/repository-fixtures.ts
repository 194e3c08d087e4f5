/// <reference types="jest" />
// Test helpers of the repository specs (not runtime code: only *.spec.ts files import them).
import { InMemoryResourceStore } from '../in-memory-store';
import { LocalEmbedder } from '../local-embedder';
import { ResourceRepository } from '../repository';
import type { Embedder, UpsertItem } from '../store.port';
import { SearchEntries } from '../text';

/** The local embedder, counting the texts it embeds. */
export class CountingEmbedder implements Embedder {
  private readonly inner = new LocalEmbedder(32);
  readonly dimensions = 32;
  readonly calls: string[][] = [];
  get texts(): number {
    return this.calls.reduce((sum, call) => sum + call.length, 0);
  }
  embed(texts: readonly string[]): Promise<number[][]> {
    this.calls.push([...texts]);
    return this.inner.embed(texts);
  }
}

/** An in-memory store whose upserts or next history save can be made to fail. */
export class FlakyStore extends InMemoryResourceStore {
  failUpserts = false;
  failNextUndoSave = false;
  override async upsert(items: readonly UpsertItem[]): Promise<void> {
    if (this.failUpserts) throw new Error('disk full');
    return super.upsert(items);
  }
  override async saveUndo(json: unknown): Promise<void> {
    if (this.failNextUndoSave) {
      this.failNextUndoSave = false;
      throw new Error('disk full');
    }
    return super.saveUndo(json);
  }
}

/** The root location of an aspect. */
export const root = (aspect: string) => ({ resource_uri: `/${aspect}`, children_key: null });

/** A repository over a FlakyStore with two characters and a chapter with one scene; embedder calls reset. */
export async function setup() {
  const store = new FlakyStore();
  const embedder = new CountingEmbedder();
  const repo = await ResourceRepository.open(store, embedder);
  await repo.addAspect('character', { description: 'people' });
  await repo.addAspect('outline', { children_keys: ['scenes'] });
  await repo.apply([
    {
      target: 'resource',
      location: root('character'),
      data: [
        { id: 'yu_gui', name: '余归', age: 17 },
        { id: 'lin', name: 'Lin' },
      ],
    },
    {
      target: 'resource',
      location: root('outline'),
      data: [{ id: 'chapter_1', title: 'Start', scenes: [{ id: 's1' }] }],
    },
  ]);
  embedder.calls.length = 0;
  return { store, embedder, repo };
}

/** The store holds exactly the tree's records (with matching hashes) and aspects. */
export function expectStoreMatchesTree(
  store: InMemoryResourceStore,
  repo: ResourceRepository,
  embedderId?: string,
): void {
  const state = store.exportState();
  const snapshot = repo.snapshot();
  expect(state.aspects).toEqual(snapshot.aspects);
  const byUri = (a: { uri: string }, b: { uri: string }) => a.uri.localeCompare(b.uri);
  expect(state.records.map((stored) => stored.record).sort(byUri)).toEqual([...snapshot.records].sort(byUri));
  const entries = new SearchEntries(snapshot.records, embedderId);
  const lookup = (uri: string) => snapshot.records.find((record) => record.uri === uri);
  for (const stored of state.records) expect(stored.hash).toBe(entries.entryOf(stored.record, lookup).hash);
}
