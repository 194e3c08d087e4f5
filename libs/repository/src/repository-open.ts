import { Backlog } from './backlog';
import { guard } from './failures';
import { parseHistory, withJournal } from './history';
import type { RepositoryOptions } from './repository-types';
import type { Embedder, ResourceStore, StoreState } from './store.port';
import { StoreWriter } from './store-writer';
import { ResourceTree } from './tree';

// Opening a repository: its state loaded from the store, then the store work an interrupted write left behind.

export type LoadedRepository = Awaited<ReturnType<typeof loadRepository>>;

/** Reads the store's state into a tree, its writer, the history (undo log, applied keys, journal) and the backlog. */
export async function loadRepository(store: ResourceStore, embedder: Embedder, options: RepositoryOptions) {
  const state: StoreState = await guard('load the store', () => store.load());
  const history = parseHistory(state.undo, {
    undo: {
      ...(options.undoCap ? { cap: options.undoCap } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    },
    appliedKeys: { ...options.appliedKeys, ...(options.clock ? { clock: options.clock } : {}) },
  });
  const backlogOptions = {
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.newId ? { newId: options.newId } : {}),
  };
  const backlog = state.backlog
    ? Backlog.fromJSON(state.backlog, backlogOptions)
    : new Backlog(backlogOptions);
  const tree = new ResourceTree();
  const loaded = withJournal(state.aspects, state.records, history.journal);
  const { orphans } = tree.load(loaded.aspects, loaded.records);
  const hashes = new Map(state.records.map((stored) => [stored.record.uri, stored.hash]));
  const writer = new StoreWriter(store, embedder, tree, hashes);
  return { state, history, backlog, tree, writer, orphans };
}

/**
 * The newest write's journal is replayed first (the store may lack part of that write when the process died during
 * it); then orphan records (unreachable from any aspect) are deleted and records whose stored hash does not match
 * their content are re-embedded. Throws UNAVAILABLE when the store or the embedder fails.
 */
export async function settleLoaded(store: ResourceStore, loaded: LoadedRepository): Promise<void> {
  const { state, history, writer, orphans } = loaded;
  if (history.journal) {
    const journal = history.journal;
    await guard('complete the last write', () => writer.complete(journal, state.aspects, state.records));
  }
  if (orphans.length > 0) {
    await guard('delete orphan records', () => store.delete(orphans));
    writer.forget(orphans);
  }
  const stale = writer.staleUris();
  if (stale.length > 0) {
    await guard('re-embed stale records', async () =>
      writer.carryOut(await writer.prepare(stale, false, false)),
    );
  }
}
