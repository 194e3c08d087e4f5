import type { Schemas } from '@qdrant/js-client-rest';
import { documentTerms, ElementRecord, parseUri, prefixedTerms, type UpsertItem } from '@novelrag/repository';
import { sparseVector } from './sparse';
import { pointIdOf } from './uuid5';

/** Format of the element payload (`schemaVersion` in every point). */
export const QDRANT_PAYLOAD_VERSION = 1;
export const DENSE = 'dense';
export const SPARSE = 'bm25';
/** Keyword payload indexes: the fields filters use. */
export const INDEXED_FIELDS = ['uri', 'aspect', 'parent_uri', 'id'] as const;

/** The payload of an element point. `record` is the ElementRecord as a JSON object (selectable by path). */
export interface ElementPayload {
  readonly [key: string]: unknown;
  readonly schemaVersion: number;
  readonly uri: string;
  readonly aspect: string;
  readonly parent_uri: string | null;
  readonly id: string;
  readonly record: ElementRecord;
  /** Every child id over all children keys (in key order). */
  readonly child_ids: string[];
  readonly hash: string;
  readonly text: string;
}

export function elementPayload(item: UpsertItem): ElementPayload {
  const { record } = item;
  return {
    schemaVersion: QDRANT_PAYLOAD_VERSION,
    uri: record.uri,
    aspect: record.aspect,
    parent_uri: record.parentUri,
    id: record.id,
    record,
    child_ids: Object.values(record.children).flat(),
    hash: item.hash,
    text: item.text,
  };
}

/**
 * The point of an upsert: dense vector (when given) and one sparse vector of the element's analysed terms, the
 * keyword side's as they are and the name side's prefixed (`prefixedTerms`), so both sides query one vector.
 */
export function elementPoint(item: UpsertItem): Schemas['PointStruct'] {
  const sparse = sparseVector(prefixedTerms(documentTerms(item.record, item.text)));
  return {
    id: pointIdOf(item.record.uri),
    vector: {
      ...(item.vector ? { [DENSE]: item.vector } : {}),
      [SPARSE]: { indices: sparse.indices, values: sparse.values },
    },
    payload: elementPayload(item),
  };
}

/**
 * The record stored in a payload. Properties removed by a payload selector leave `properties` possibly absent,
 * which reads as `{}`. Throws (zod) on a payload that is not an element record.
 */
export function recordFromPayload(payload: Record<string, unknown> | null | undefined): ElementRecord {
  const raw = payload?.['record'];
  if (raw === null || typeof raw !== 'object') throw new Error('The Qdrant point has no record payload');
  return ElementRecord.parse({ properties: {}, relationships: {}, children: {}, ...(raw as object) });
}

/** `aspect = value`, or no filter. Values are structured JSON: nothing to escape. */
export function aspectFilter(aspect: string | undefined): Schemas['Filter'] | undefined {
  return aspect === undefined ? undefined : { must: [{ key: 'aspect', match: { value: aspect } }] };
}

/** Exact id candidates: the id as typed and lowercased, optionally within one aspect. */
export function exactIdFilter(text: string, aspect: string | undefined): Schemas['Filter'] {
  const ids = [...new Set([text, text.toLowerCase()])];
  return {
    must: [
      { key: 'id', match: { any: ids } },
      ...(aspect === undefined ? [] : [{ key: 'aspect', match: { value: aspect } }]),
    ],
  };
}

// Qdrant payload paths are dot-separated; only plain keys can be named without quoting rules we cannot verify.
const PLAIN_KEY = /^[A-Za-z0-9_]+$/;

/**
 * The payload selector for a segment: the record without the excluded properties that can be addressed by path
 * (`record.properties.<name>`). Other names are dropped client-side by `buildSegments`, which filters every
 * excluded property anyway: the selector only saves transfer.
 */
export function segmentSelector(excludedProperties: readonly string[]): Schemas['WithPayloadInterface'] {
  const paths = [...new Set(excludedProperties)]
    .filter((name) => PLAIN_KEY.test(name))
    .sort()
    .map((name) => `record.properties.${name}`);
  return paths.length === 0 ? { include: ['record'] } : { exclude: ['text', 'child_ids', 'hash', ...paths] };
}

/** Whether `uri` is a well-formed element URI (`/{aspect}/{id}...`). */
export function isElementUri(uri: string): boolean {
  try {
    return parseUri(uri).kind === 'element';
  } catch {
    return false;
  }
}
