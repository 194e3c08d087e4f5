import { join } from 'node:path';
import type { ResourceStore } from '@novelrag/repository';
import { FolderLock } from './folder-lock';
import type { ResizeEmbed } from './lancedb-resize';
import { LanceDbResourceStore } from './lancedb-store';
import { QdrantResourceStore } from './qdrant-store';

/** The store settings of the service environment (already validated by the env schema). */
export interface StoreEnv {
  readonly QDRANT_URL?: string | undefined;
  readonly QDRANT_API_KEY?: string | undefined;
  readonly NOVELRAG_DATA_DIR: string;
}

/** For a store that holds vectors of another size (the embedding model changed): see `resizeTables`. */
export interface StoreResizeOptions {
  /** The configured embedder, to re-embed thread memories (elements are re-embedded by the repository). */
  readonly embed?: ResizeEmbed;
  /** Progress messages of the resize. */
  readonly log?: (message: string) => void;
}

/**
 * Qdrant when `QDRANT_URL` is set (production), else the embedded LanceDB store in `<NOVELRAG_DATA_DIR>/store`, owned
 * by this process alone (`FolderLock`, released by the store's `close`). Rejects when the store cannot be
 * reached/opened, or its folder is in use by another live process.
 */
export async function createStore(
  env: StoreEnv,
  dimensions: number,
  resize: StoreResizeOptions = {},
): Promise<ResourceStore> {
  if (env.QDRANT_URL) {
    return QdrantResourceStore.open({
      url: env.QDRANT_URL,
      ...(env.QDRANT_API_KEY ? { apiKey: env.QDRANT_API_KEY } : {}),
      dimensions,
      ...resize,
    });
  }
  const dir = join(env.NOVELRAG_DATA_DIR, 'store');
  const lock = await FolderLock.acquire(dir);
  let store: ResourceStore;
  try {
    store = await LanceDbResourceStore.open({ dir, dimensions, ...resize });
  } catch (err) {
    await lock.release();
    throw err;
  }
  return releasingOnClose(store, lock);
}

/** `store` whose `close` also gives up `lock` (after the store closed). */
function releasingOnClose(store: ResourceStore, lock: FolderLock): ResourceStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'close')
        return async () => {
          try {
            await target.close();
          } finally {
            await lock.release();
          }
        };
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
