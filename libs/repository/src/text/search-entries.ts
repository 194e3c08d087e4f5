import type { ElementRecord, RecordLookup, Relationships } from '../model';
import { elementNames, type IncomingRelation, nameDependents, searchHash, searchText } from './document';

/** The records a write touched, as they are now (undefined: deleted). */
export type Touched = ReadonlyMap<string, ElementRecord | undefined>;

const NONE: Touched = new Map();

/**
 * What the search entries of the stored elements were built from: each element's names and outgoing
 * relationships, and the incoming relationships by target. An element's search text shows its neighbours' names
 * and the relationships pointing at it, so a write that renames an element or changes its relationships must
 * also re-index the neighbours (`dependents`).
 */
export class SearchEntries {
  private readonly names = new Map<string, string>();
  private readonly outgoing = new Map<string, Relationships>();
  private readonly incoming = new Map<string, Map<string, string[]>>();

  /** `embedderId`: the id of the embedder the vectors come from (part of the search hash). */
  constructor(
    records: Iterable<ElementRecord>,
    private readonly embedderId = '',
  ) {
    for (const record of records) this.remember(record);
  }

  /** Records the entry written for `record`. */
  remember(record: ElementRecord): void {
    this.unlink(record.uri);
    this.names.set(record.uri, namesKey(record));
    const relationships = Object.entries(record.relationships);
    // No entry for an element that relates to nothing (rather than an empty object per element).
    if (relationships.length > 0) this.outgoing.set(record.uri, structuredClone(record.relationships));
    for (const [target, labels] of relationships) {
      const sources = this.incoming.get(target) ?? new Map<string, string[]>();
      sources.set(record.uri, [...labels]);
      this.incoming.set(target, sources);
    }
  }

  /** Forgets an element whose entry was deleted. */
  forget(uri: string): void {
    this.unlink(uri);
    this.names.delete(uri);
  }

  /** The search text and hash `record` should be stored with, the write's `touched` records taken as they are now. */
  entryOf(
    record: ElementRecord,
    lookup: RecordLookup,
    touched: Touched = NONE,
  ): { text: string; hash: string } {
    const incoming: IncomingRelation[] = [];
    for (const [source, labels] of this.incoming.get(record.uri) ?? []) {
      if (!touched.has(source)) incoming.push([source, labels]);
    }
    incoming.push(...(touchedIncoming(touched).get(record.uri) ?? []));
    incoming.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const text = searchText(record, lookup, incoming);
    return { text, hash: searchHash(text, this.embedderId) };
  }

  /** Elements outside `touched` whose search text the write changes: neighbours of renamed elements, relation ends. */
  dependents(touched: Touched): string[] {
    const out = new Set<string>();
    for (const [uri, record] of touched) {
      if ((record ? namesKey(record) : undefined) !== this.names.get(uri)) {
        if (record) for (const dependent of nameDependents(record)) out.add(dependent);
        for (const source of this.incoming.get(uri)?.keys() ?? []) out.add(source);
        for (const target of Object.keys(this.outgoing.get(uri) ?? {})) out.add(target);
      }
      const before = this.outgoing.get(uri) ?? {};
      const after = record?.relationships ?? {};
      if (JSON.stringify(before) !== JSON.stringify(after)) {
        for (const target of [...Object.keys(before), ...Object.keys(after)]) out.add(target);
      }
    }
    return [...out].filter((uri) => !touched.has(uri));
  }

  private unlink(uri: string): void {
    for (const target of Object.keys(this.outgoing.get(uri) ?? {})) {
      const sources = this.incoming.get(target);
      sources?.delete(uri);
      if (sources?.size === 0) this.incoming.delete(target);
    }
    this.outgoing.delete(uri);
  }
}

/**
 * The relationships the touched records hold, by target, computed once per write: `entryOf` runs for every record a
 * write touches, and scanning all touched records each time made a write of n elements cost n² (a 500-element batch
 * spent more time there than in the embedder).
 */
const incomingByTouched = new WeakMap<Touched, ReadonlyMap<string, IncomingRelation[]>>();

function touchedIncoming(touched: Touched): ReadonlyMap<string, IncomingRelation[]> {
  let byTarget = incomingByTouched.get(touched);
  if (byTarget) return byTarget;
  const built = new Map<string, IncomingRelation[]>();
  for (const [source, current] of touched) {
    for (const [target, labels] of Object.entries(current?.relationships ?? {})) {
      const list = built.get(target) ?? [];
      list.push([source, labels]);
      built.set(target, list);
    }
  }
  byTarget = built;
  incomingByTouched.set(touched, byTarget);
  return byTarget;
}

function namesKey(record: ElementRecord): string {
  return JSON.stringify(elementNames(record));
}
