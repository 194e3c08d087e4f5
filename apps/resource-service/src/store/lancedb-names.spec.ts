import { type ElementRecord, elementKeys } from '@novelrag/repository';
import { NameCache } from './lancedb-names';

function record(uri: string, properties: ElementRecord['properties']): ElementRecord {
  const id = uri.slice(uri.lastIndexOf('/') + 1);
  const parentUri = uri.split('/').length > 3 ? uri.slice(0, uri.lastIndexOf('/')) : null;
  return { id, uri, aspect: uri.split('/')[1]!, parentUri, properties, relationships: {}, children: {} };
}

const noFetch = async (): Promise<ElementRecord[]> => [];

describe('NameCache', () => {
  it('gives the match keys of the whole record for root and nested elements, named or not', async () => {
    const elements = [
      record('/character/yu_gui', { name: '余归', aliases: ['Yu'], age: 17, note: 'not a name' }),
      record('/location/europe/london', { name: 'London', climate: 'rainy' }),
      record('/location/europe/no_name', { climate: 'dry' }),
    ];
    const cache = new NameCache();
    for (const element of elements) cache.set(element);
    const keysOf = await cache.keysOf(
      elements.map((element) => element.uri),
      noFetch,
    );
    for (const element of elements) expect(keysOf(element.uri)).toEqual(elementKeys(element));
  });

  it('fetches only the elements it lacks, and forgets deleted ones', async () => {
    const cache = new NameCache();
    cache.set(record('/character/a', { name: 'Ann' }));
    const fetched: string[][] = [];
    const keysOf = await cache.keysOf(['/character/a', '/character/b'], async (missing) => {
      fetched.push(missing);
      return [record('/character/b', { name: 'Bo' })];
    });
    expect(fetched).toEqual([['/character/b']]);
    expect(keysOf('/character/b')?.exact.has('bo')).toBe(true);
    cache.delete('/character/a');
    expect((await cache.keysOf([], noFetch))('/character/a')).toBeUndefined();
  });

  it('keeps its own copy of name lists (the record it was given may change later)', async () => {
    const cache = new NameCache();
    const element = record('/character/a', { aliases: ['Ann'] });
    cache.set(element);
    (element.properties['aliases'] as string[]).push('Bea');
    const keys = (await cache.keysOf(['/character/a'], noFetch))('/character/a');
    expect(keys?.exact.has('ann')).toBe(true);
    expect(keys?.exact.has('bea')).toBe(false);
  });

  it('recomputes the keys of a renamed element', async () => {
    const cache = new NameCache();
    cache.set(record('/character/a', { name: 'Ann' }));
    expect((await cache.keysOf(['/character/a'], noFetch))('/character/a')?.exact.has('ann')).toBe(true);
    cache.set(record('/character/a', { name: 'Bea' }));
    const keys = (await cache.keysOf(['/character/a'], noFetch))('/character/a');
    expect(keys?.exact.has('bea')).toBe(true);
    expect(keys?.exact.has('ann')).toBe(false);
  });
});
