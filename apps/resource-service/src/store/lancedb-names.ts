import { type ElementKeys, type ElementRecord, elementKeys, nameRecord } from '@novelrag/repository';

/**
 * What the search's name matching reads of every stored element (`nameRecord`: identity and name properties), kept in
 * memory by the LanceDB store: filled by `load` (which reads every record anyway), updated by its writes and
 * deletes, with each element's match keys (`elementKeys`, pinyin included) computed once, when a search first meets
 * it. The search sides then fetch uris only, not whole records (reading the `record` column of ~150 candidates cost
 * more than the nearest-neighbour search itself at 100k rows); a candidate the cache lacks (a store searched before
 * it was loaded) is read from the table.
 */
export class NameCache {
  private readonly byUri = new Map<string, ElementRecord>();
  private readonly keys = new Map<string, ElementKeys>();

  set(record: ElementRecord): void {
    this.byUri.set(record.uri, nameRecord(record));
    this.keys.delete(record.uri);
  }

  delete(uri: string): void {
    this.byUri.delete(uri);
    this.keys.delete(uri);
  }

  /** The match keys of `uris` (undefined for an element not stored), reading those the cache lacks with `fetch`. */
  async keysOf(
    uris: Iterable<string>,
    fetch: (missing: string[]) => Promise<Iterable<ElementRecord>>,
  ): Promise<(uri: string) => ElementKeys | undefined> {
    const missing = [...new Set(uris)].filter((uri) => !this.byUri.has(uri));
    if (missing.length > 0) for (const record of await fetch(missing)) this.set(record);
    return (uri) => {
      const known = this.keys.get(uri);
      if (known) return known;
      const record = this.byUri.get(uri);
      if (!record) return undefined;
      const computed = elementKeys(record);
      this.keys.set(uri, computed);
      return computed;
    };
  }
}
