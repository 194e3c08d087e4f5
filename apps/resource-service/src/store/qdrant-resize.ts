import type { Schemas } from '@qdrant/js-client-rest';
import { DENSE } from './qdrant-mapping';
import type { QdrantPort } from './qdrant-store';

const PAGE = 256;

/** A stored point as the resize reads it: id and payload (vectors are never read back). */
export interface StoredPoint {
  readonly id: string | number;
  readonly payload: Record<string, unknown>;
}

export interface CollectionResize {
  readonly client: QdrantPort;
  readonly collection: string;
  readonly dimensions: number;
  /** Creates a collection of the new size with its payload indexes. */
  create(name: string): Promise<void>;
  /**
   * The points to write for a page of stored ones: payload kept, sparse vector rebuilt, dense vector new or none.
   * `staging`: the points go to the staging collection, whose vectors are never read back (nothing to embed).
   */
  rebuild(points: readonly StoredPoint[], staging: boolean): Promise<Schemas['PointStruct'][]>;
  readonly log?: ((message: string) => void) | undefined;
}

/** The dense vector size of a collection, or null when it does not exist. */
export async function denseSize(client: QdrantPort, name: string): Promise<number | null> {
  if (!(await client.collectionExists(name)).exists) return null;
  const info = await client.getCollection(name);
  const vectors = info.config.params.vectors as Record<string, { size?: number }> | undefined;
  return vectors?.[DENSE]?.size ?? null;
}

/**
 * Brings `collection` to `dimensions` when it holds another size, or finishes a resize a crash interrupted; a no-op
 * otherwise. A Qdrant collection's vector size is fixed, so its points move through a staging collection
 * `<collection>_resize` of the new size: stored points are rebuilt into it (payload only is read back), the old
 * collection is deleted and created again at the new size, and the staging points are rebuilt into it. A crash while
 * staging fills leaves the old collection whole (a collection of another size than staging's: staging is dropped, and
 * filled again if the wanted size still differs); after the old one is deleted (the collection absent or of staging's
 * size), staging holds every point and the next open finishes from it, at whatever size is wanted then. Sizes never
 * mix in one collection.
 */
export async function resizeCollection(resize: CollectionResize): Promise<void> {
  const { client, collection, dimensions, log } = resize;
  const staging = `${collection}_resize`;
  const size = await denseSize(client, collection);
  const stagedSize = await denseSize(client, staging);
  // Staging holds every point once the old collection is gone: the collection is absent or was created again at the
  // staging's size. Next to a collection of another size it is a filling that a crash interrupted (whatever size is
  // wanted now, e.g. the old one again): dropped, the collection being whole.
  let staged = stagedSize !== null;
  if (staged && size !== null && size !== stagedSize) {
    await client.deleteCollection(staging);
    staged = false;
  }
  if (!staged && (size === null || size === dimensions)) return;
  log?.(`resizing Qdrant collection ${collection} from ${size ?? '?'} to ${dimensions} dimensions`);
  if (!staged) {
    await resize.create(staging);
    await copyPoints(resize, collection, staging, true);
  }
  if (size !== null) await client.deleteCollection(collection);
  await resize.create(collection);
  await copyPoints(resize, staging, collection, false);
  await client.deleteCollection(staging);
  log?.(`resized Qdrant collection ${collection} to ${dimensions} dimensions`);
}

async function copyPoints(
  resize: CollectionResize,
  from: string,
  to: string,
  staging: boolean,
): Promise<void> {
  const { client, log } = resize;
  let offset: Schemas['ExtendedPointId'] | undefined;
  let copied = 0;
  do {
    const page = await client.scroll(from, {
      limit: PAGE,
      with_payload: true,
      with_vector: false,
      ...(offset !== undefined ? { offset } : {}),
    });
    const stored = page.points.map((point) => ({ id: point.id, payload: point.payload ?? {} }));
    if (stored.length > 0) {
      await client.upsert(to, { wait: true, points: await resize.rebuild(stored, staging) });
      copied += stored.length;
      log?.(`copied ${copied} points of ${from} to ${to}`);
    }
    const next = page.next_page_offset;
    offset = typeof next === 'string' || typeof next === 'number' ? next : undefined;
  } while (offset !== undefined);
}
