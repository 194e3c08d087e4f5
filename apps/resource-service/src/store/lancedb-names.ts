import {
  type ElementKeys,
  type ElementRecord,
  elementKeys,
  type JsonObject,
  nameRecord,
  nameRecordOf,
} from '@novelrag/repository';

/** The name properties of an element that has none: one shared object rather than one per element. */
const NO_NAMES: JsonObject = Object.freeze({});

/** Computed match keys kept at most (oldest dropped first): they are ~10 times the size of the names they come from. */
const KEYS_CAP = 50_000;

/**
 * What the search's name matching reads of every stored element (`nameRecord`: identity and name properties), kept in
 * memory by the LanceDB store: filled by `load` (which reads every record anyway), updated by its writes and
 * deletes, with each element's match keys (`elementKeys`, pinyin included) computed when a search meets it. The
 * search sides then fetch uris only, not whole records (reading the `record` column of ~150 candidates cost more than
 * the nearest-neighbour search itself at 100k rows); a candidate the cache lacks (a store searched before it was
 * loaded) is read from the table.
 *
 * Per element it keeps only the name properties (the rest of `nameRecord` follows from the uri; a whole `nameRecord`
 * per element was ~370 bytes of heap, a third of the store's share at 1M elements), and the match keys of the
 * `KEYS_CAP` elements searches met last.
 */
export class NameCache {
  private readonly byUri = new Map<string, JsonObject>();
  private readonly keys = new Map<string, ElementKeys>();

  set(record: ElementRecord): void {
    const names = nameRecord(record).properties;
    const values = Object.values(names);
    // Strings are shared with `record`; lists (aliases) are copied, since the loaded records become the
    // repository's tree, which owns them.
    const own = values.some((value) => typeof value === 'object') ? structuredClone(names) : names;
    this.byUri.set(record.uri, values.length > 0 ? own : NO_NAMES);
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
      const names = this.byUri.get(uri);
      if (!names) return undefined;
      const computed = elementKeys(nameRecordOf(uri, names));
      if (this.keys.size >= KEYS_CAP) this.keys.delete(this.keys.keys().next().value as string);
      this.keys.set(uri, computed);
      return computed;
    };
  }
}
