import { join } from 'node:path';
import type { ResourceStore } from '../domain';
import { LanceDbResourceStore } from './lancedb-store';
import { QdrantResourceStore } from './qdrant-store';

/** The store settings of the service environment (already validated by the env schema). */
export interface StoreEnv {
  readonly QDRANT_URL?: string | undefined;
  readonly QDRANT_API_KEY?: string | undefined;
  readonly NOVELRAG_DATA_DIR: string;
}

/**
 * Qdrant when `QDRANT_URL` is set (production), else the embedded LanceDB store in `<NOVELRAG_DATA_DIR>/store`.
 * Rejects when the store cannot be reached/opened or was created for other `dimensions`.
 */
export function createStore(env: StoreEnv, dimensions: number): Promise<ResourceStore> {
  if (env.QDRANT_URL) {
    return QdrantResourceStore.open({
      url: env.QDRANT_URL,
      ...(env.QDRANT_API_KEY ? { apiKey: env.QDRANT_API_KEY } : {}),
      dimensions,
    });
  }
  return LanceDbResourceStore.open({ dir: join(env.NOVELRAG_DATA_DIR, 'store'), dimensions });
}
