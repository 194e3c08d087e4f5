import type { JsonObject } from './json';
import { type AspectRecord, aspectView, type ElementRecord, type Relationships } from './model';
import type { SegmentData, SegmentsRequest, SegmentsResult } from './store.port';
import { parseUri } from './uri';

/** Read access a store gives `buildSegments` (the in-memory store passes its maps; others may pre-fetch). */
export interface SegmentSource {
  readonly aspects: readonly AspectRecord[];
  record(uri: string): ElementRecord | undefined;
}

function without(source: JsonObject, excluded: ReadonlySet<string>): JsonObject {
  return Object.fromEntries(Object.entries(source).filter(([key]) => !excluded.has(key)));
}

/** Builds segments as documented on `SegmentData` from full records (reference behaviour for every store). */
export function buildSegments(source: SegmentSource, request: SegmentsRequest): SegmentsResult {
  const excludedUris = new Set(request.excludedUris ?? []);
  const segments: SegmentData[] = [];
  const missing: string[] = [];
  for (const { uri, excludedProperties = [] } of request.segments) {
    if (excludedUris.has(uri)) continue;
    const excluded = new Set(excludedProperties);
    const base = { uri, excludedProperties: [...excluded].sort(), relationships: {} as Relationships };
    let kind: ReturnType<typeof parseUri>['kind'];
    try {
      kind = parseUri(uri).kind;
    } catch {
      missing.push(uri);
      continue;
    }
    if (kind === 'root') {
      const aspects = source.aspects
        .map((aspect) => aspect.name)
        .filter((name) => !excludedUris.has(`/${name}`));
      segments.push({ ...base, kind, properties: {}, childIds: { aspects } });
      continue;
    }
    if (kind === 'aspect') {
      const aspect = source.aspects.find((candidate) => `/${candidate.name}` === uri);
      if (!aspect) {
        missing.push(uri);
        continue;
      }
      const { rootIds, ...plain } = aspect;
      segments.push({
        ...base,
        kind,
        properties: without(aspectView(plain), excluded),
        childIds: { top_child_resources: rootIds.filter((id) => !excludedUris.has(`${uri}/${id}`)) },
      });
      continue;
    }
    const record = source.record(uri);
    if (!record) {
      missing.push(uri);
      continue;
    }
    const childIds = Object.fromEntries(
      Object.entries(record.children).map(([key, ids]) => [
        key,
        ids.filter((id) => !excludedUris.has(`${uri}/${id}`)),
      ]),
    );
    const relationships = Object.fromEntries(
      Object.entries(record.relationships)
        .filter(([target]) => !excludedUris.has(target))
        .map(([target, descriptions]) => [target, [...descriptions]]),
    );
    segments.push({
      ...base,
      kind,
      properties: structuredClone(without(record.properties, excluded)),
      childIds,
      relationships,
    });
  }
  return { segments, missing };
}
