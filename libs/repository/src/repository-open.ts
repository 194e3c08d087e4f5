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
export async function settleLoaded(
  store: ResourceStore,
  loaded: LoadedRepository,
  options: RepositoryOptions = {},
): Promise<void> {
  const { state, history, writer, orphans } = loaded;
  if (history.journal) {
    const journal = history.journal;
    await guard('complete the last write', () => writer.complete(journal, state.aspects, state.records));
  }
  if (orphans.length > 0) {
    await guard('delete orphan records', () => store.delete(orphans));
    writer.forget(orphans);
  }
  await reembedStale(writer, options);
}

/** Default `RepositoryOptions.reembedBatch`. */
const REEMBED_BATCH = 256;

/**
 * Re-embeds and rewrites the elements whose stored hash differs from their current one (a new analysis version, a new
 * embedding model: then every element) in batches, logging progress after each. An element a batch already rewrote
 * as a neighbour is skipped when its own batch comes.
 */
async function reembedStale(writer: StoreWriter, options: RepositoryOptions): Promise<void> {
  const stale = writer.staleUris();
  if (stale.length === 0) return;
  const size = Math.max(1, options.reembedBatch ?? REEMBED_BATCH);
  options.log?.(`re-embedding ${stale.length} elements whose search text or embedding model changed`);
  for (let start = 0; start < stale.length; start += size) {
    const batch = stale.slice(start, start + size).filter((uri) => writer.isStale(uri));
    if (batch.length > 0) {
      await guard('re-embed stale records', async () =>
        writer.carryOut(await writer.prepare(batch, null, false)),
      );
    }
    options.log?.(`re-embedded ${Math.min(start + size, stale.length)}/${stale.length} elements`);
  }
}
