import { ResourceError } from './errors';
import { guard } from './failures';
import { contextView } from './model';
import type { SearchResult } from './repository-types';
import type { Embedder, ResourceStore } from './store.port';
import type { ResourceTree } from './tree';

/**
 * Hybrid search of the repository: the store ranks, the tree (read under `committed`) supplies each hit's contextView;
 * hits the tree no longer has are dropped. Throws VALIDATION_FAILED (empty query), NOT_FOUND (unknown aspect),
 * UNAVAILABLE.
 */
export async function searchRepository(
  tree: ResourceTree,
  store: ResourceStore,
  embedder: Embedder,
  query: string,
  options: { aspect?: string; limit?: number },
  committed: <T>(read: () => T) => Promise<T>,
): Promise<SearchResult[]> {
  if (query.trim().length === 0) throw new ResourceError('VALIDATION_FAILED', 'The search query is empty');
  if (options.aspect !== undefined && !tree.getAspect(options.aspect)) {
    throw new ResourceError('NOT_FOUND', `Aspect ${options.aspect} not found`, {
      uri: `/${options.aspect}`,
    });
  }
  const [vector] = await guard('embed the query', () => embedder.embed([query]));
  const hits = await guard('search the store', () =>
    store.search({
      text: query,
      vector: vector ?? [],
      limit: options.limit ?? 20,
      ...(options.aspect !== undefined ? { aspect: options.aspect } : {}),
    }),
  );
  return committed(() => {
    const results: SearchResult[] = [];
    for (const hit of hits) {
      const record = tree.get(hit.uri);
      if (record) results.push({ uri: hit.uri, score: hit.score, element: contextView(record) });
    }
    return results;
  });
}
