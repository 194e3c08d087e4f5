import {
  contentHash,
  documentTerms,
  embeddingText,
  type ElementRecord,
  prefixedTerms,
} from '@novelrag/repository';
import {
  aspectFilter,
  DENSE,
  elementPayload,
  elementPoint,
  exactIdFilter,
  recordFromPayload,
  segmentSelector,
  SPARSE,
} from './qdrant-mapping';
import { sparseVector } from './sparse';
import { pointIdOf } from './uuid5';

const record: ElementRecord = {
  id: 'chapter_1',
  uri: '/outline/chapter_1',
  aspect: 'outline',
  parentUri: null,
  relationships: { '/character/yu_gui': ['主角'] },
  properties: { title: '初入青云', nested: { a: [1, null] } },
  children: { scenes: ['s1', 's2'], beats: ['b1'] },
};
const item = { record, hash: contentHash(record), text: embeddingText(record), vector: [0.5, 0.5] };

describe('Qdrant payload mapping', () => {
  it('maps an element to its payload (filter fields, record object, child ids, hash, text)', () => {
    expect(elementPayload(item)).toEqual({
      schemaVersion: 1,
      uri: '/outline/chapter_1',
      aspect: 'outline',
      parent_uri: null,
      id: 'chapter_1',
      record,
      child_ids: ['s1', 's2', 'b1'],
      hash: item.hash,
      text: item.text,
    });
  });

  it('builds the point: UUIDv5 id, dense and sparse named vectors', () => {
    const point = elementPoint(item);
    const sparse = sparseVector(prefixedTerms(documentTerms(item.record, item.text)));
    expect(point.id).toBe(pointIdOf(record.uri));
    expect(point.vector).toEqual({
      [DENSE]: [0.5, 0.5],
      [SPARSE]: { indices: sparse.indices, values: sparse.values },
    });
  });

  it('leaves the dense vector out when the item keeps its stored one', () => {
    expect(Object.keys(elementPoint({ ...item, vector: null }).vector as object)).toEqual([SPARSE]);
  });

  it('reads the record back from a payload, also with properties removed by a selector', () => {
    expect(recordFromPayload(elementPayload(item))).toEqual(record);
    const { properties: _dropped, ...rest } = record;
    expect(recordFromPayload({ record: rest })).toEqual({ ...record, properties: {} });
    expect(() => recordFromPayload({})).toThrow(/no record/);
    expect(() => recordFromPayload({ record: { id: 1 } })).toThrow();
  });
});

describe('Qdrant filters and selectors', () => {
  it('filters by aspect as a structured match (quotes need no escaping)', () => {
    expect(aspectFilter(undefined)).toBeUndefined();
    expect(aspectFilter("o'brien")).toEqual({ must: [{ key: 'aspect', match: { value: "o'brien" } }] });
  });

  it('looks exact ids up as typed and lowercased, within the aspect', () => {
    expect(exactIdFilter('Elena', undefined)).toEqual({
      must: [{ key: 'id', match: { any: ['Elena', 'elena'] } }],
    });
    expect(exactIdFilter('x', 'character')).toEqual({
      must: [
        { key: 'id', match: { any: ['x'] } },
        { key: 'aspect', match: { value: 'character' } },
      ],
    });
  });

  it('excludes addressable properties by payload path and leaves the rest to buildSegments', () => {
    expect(segmentSelector([])).toEqual({ include: ['record'] });
    expect(segmentSelector(['title', 'age', 'title', 'with.dot', '名字'])).toEqual({
      exclude: ['text', 'child_ids', 'hash', 'record.properties.age', 'record.properties.title'],
    });
    expect(segmentSelector(['with.dot'])).toEqual({ include: ['record'] });
  });
});
