import type { AspectDump, BacklogEntry, OperationHistoryEntry } from '@novelrag/contracts';
import {
  type Embedder,
  InMemoryResourceStore,
  LocalEmbedder,
  ResourceRepository,
  type RepositoryOptions,
  type ResourceStore,
} from '@novelrag/repository';
import { RepositoryResourceService } from './repository-resource-service';
import { toAction } from './wire';
import { BacklogCodec } from './wire-helpers';

/** A state to start from, as if the repository had been persisted with it. */
export interface ResourceSeed {
  /** Aspects with their elements (imported before anything else). */
  readonly aspects?: readonly AspectDump[];
  /** Backlog entries kept as they are (ids, priorities and times). */
  readonly backlog?: readonly BacklogEntry[];
  /** The undo/redo history, newest first (what `operations` returns). Seeding leaves no history of its own. */
  readonly history?: readonly OperationHistoryEntry[];
}

export interface InMemoryResourceServiceOptions extends RepositoryOptions {
  /** Default: the deterministic LocalEmbedder (search works offline). */
  readonly embedder?: Embedder;
  readonly seed?: ResourceSeed;
}

/**
 * The real repository on the in-memory store behind the ResourceService port: the in-process twin of the
 * resource-service for tests and offline runs (same parsing, same errors, same search and segments code).
 */
export async function openInMemoryResourceService(
  options: InMemoryResourceServiceOptions = {},
): Promise<RepositoryResourceService> {
  const { embedder = new LocalEmbedder(), seed, ...repositoryOptions } = options;
  const store = new InMemoryResourceStore();
  if (seed) await writeSeed(store, embedder, seed);
  return new RepositoryResourceService(await ResourceRepository.open(store, embedder, repositoryOptions));
}

async function writeSeed(store: ResourceStore, embedder: Embedder, seed: ResourceSeed): Promise<void> {
  if (seed.aspects && seed.aspects.length > 0) {
    // A repository that only writes the seed (it is not closed: closing would close the shared store).
    const writer = new RepositoryResourceService(await ResourceRepository.open(store, embedder));
    await writer.import({ schemaVersion: 1, aspects: [...seed.aspects], mode: 'merge' });
  }
  const entries = (stack: 'undo' | 'redo') =>
    (seed.history ?? [])
      .filter((entry) => entry.stack === stack)
      .reverse()
      .map(({ operation, group, description, at }) => ({
        action: toAction(operation),
        group,
        description,
        at,
      }));
  await store.saveUndo({ schemaVersion: 1, undo: entries('undo'), redo: entries('redo') });
  await store.saveBacklog({
    schemaVersion: 1,
    entries: (seed.backlog ?? []).map((entry) => ({ ...entry, content: BacklogCodec.encode(entry.content) })),
  });
}
