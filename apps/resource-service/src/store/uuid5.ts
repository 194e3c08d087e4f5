import { createHash } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** RFC 4122 namespace for DNS names (used by the known test vectors). */
export const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

/**
 * The fixed namespace of NovelRAG point ids: UUIDv5(URL namespace, "https://novelrag.dev/resource-uri"). Changing
 * it changes every point id, so it never changes.
 */
export const RESOURCE_URI_NAMESPACE = '5beeb449-bbab-58ae-baab-d1e5dd742cb6';

/** RFC 4122 name-based UUID, version 5 (SHA-1) of `name` (UTF-8) in `namespace`. Throws on a malformed namespace. */
export function uuidV5(name: string, namespace: string): string {
  if (!UUID.test(namespace)) throw new RangeError(`Invalid namespace UUID ${namespace}`);
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replaceAll('-', ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The Qdrant point id of a resource uri: deterministic, so upserts by uri are idempotent. */
export function pointIdOf(uri: string): string {
  return uuidV5(uri, RESOURCE_URI_NAMESPACE);
}
