import { applyAspectsDelta, type AspectsDelta } from './aspects-delta';
import type { WriteJournal } from './history';
import { canonicalJson, type JsonValue } from './json';
import type { AspectRecord, ElementRecord } from './model';
import type { Embedder, ResourceStore, StoredRecord, UpsertItem } from './store.port';
import { SearchEntries, type Touched } from './text';
import type { ResourceTree } from './tree';

/** A write ready to be committed: its journal and the store calls that carry it out, vectors computed. */
export interface PreparedWrite {
  readonly journal: WriteJournal;
  readonly deletes: string[];
  readonly items: UpsertItem[];
}

/**
 * Brings the store in line with the tree for what a write touched. `prepare` embeds, writing nothing (an embedder
 * failure leaves the store as it was); `commit` saves the history document first, carrying the write's journal
 * (the commit point, see `HistoryJson`), then deletes, upserts and applies the aspect list's change. Remembers the search
 * hash (`searchHash` of `searchText`) each stored vector and index entry was computed from, so that only changed
 * text is re-embedded. A write also re-indexes the neighbours whose search text it changes (`SearchEntries`).
 */
export class StoreWriter {
  private readonly entries: SearchEntries;

  constructor(
    private readonly store: ResourceStore,
    private readonly embedder: Embedder,
    private readonly tree: ResourceTree,
    /** uri → search hash of the vector the store holds. */
    private readonly hashes: Map<string, string>,
  ) {
    this.entries = new SearchEntries(tree.liveRecords(), embedder.id);
  }

  hashOf(uri: string): string | undefined {
    return this.hashes.get(uri);
  }

  /** Forgets uris the caller deleted from the store by itself (orphans). */
  forget(uris: readonly string[]): void {
    for (const uri of uris) {
      this.hashes.delete(uri);
      this.entries.forget(uri);
    }
  }

  /** Elements whose stored search hash differs from their current one (new format, crashes). */
  staleUris(): string[] {
    const stale: string[] = [];
    for (const record of this.tree.liveRecords()) {
      if (this.hashes.get(record.uri) !== this.entryOf(record).hash) stale.push(record.uri);
    }
    return stale;
  }

  /** Whether the element's stored search hash still differs from its current one. */
  isStale(uri: string): boolean {
    const record = this.tree.get(uri);
    return record !== undefined && this.hashes.get(uri) !== this.entryOf(record).hash;
  }

  private entryOf(record: ElementRecord, touched?: Touched): { text: string; hash: string } {
    return this.entries.entryOf(record, (uri) => this.tree.peek(uri), touched);
  }

  /**
   * The current tree state of `uris` (records, or deletions when gone) with the aspect list's change `aspects`,
   * embedding the records whose content hash differs from the stored one (all of them with `forceEmbed`).
   */
  async prepare(
    uris: readonly string[],
    aspects: AspectsDelta | null,
    forceEmbed: boolean,
  ): Promise<PreparedWrite> {
    const deletes: string[] = [];
    const pending: { record: ElementRecord; hash: string; text: string; embed: boolean }[] = [];
    const touched: Touched = new Map(uris.map((uri) => [uri, this.tree.get(uri)]));
    for (const [uri, record] of touched) {
      if (!record) {
        deletes.push(uri);
        continue;
      }
      const { text, hash } = this.entryOf(record, touched);
      pending.push({ record, hash, text, embed: forceEmbed || this.hashes.get(uri) !== hash });
    }
    for (const uri of this.entries.dependents(touched)) {
      const record = this.tree.get(uri);
      if (!record) continue;
      const { text, hash } = this.entryOf(record, touched);
      if (this.hashes.get(uri) !== hash) pending.push({ record, hash, text, embed: true });
    }
    const toEmbed = pending.filter((item) => item.embed);
    const vectors = toEmbed.length > 0 ? await this.embedder.embed(toEmbed.map((item) => item.text)) : [];
    if (vectors.length !== toEmbed.length) throw new Error('The embedder returned a wrong number of vectors');
    const vectorOf = new Map(toEmbed.map((item, index) => [item.record.uri, vectors[index] as number[]]));
    const items: UpsertItem[] = pending.map(({ record, hash, text }) => ({
      record,
      hash,
      text,
      vector: vectorOf.get(record.uri) ?? null,
    }));
    const journal: WriteJournal = {
      records: items.map((item) => item.record),
      deleted: deletes,
      aspects,
    };
    return { journal, deletes, items };
  }

  /** Saves `history` (built around the journal), then carries the write out. Rejects with the store's error. */
  async commit(history: (journal: WriteJournal) => unknown, prepared: PreparedWrite): Promise<void> {
    await this.store.saveUndo(history(prepared.journal));
    await this.carryOut(prepared);
  }

  /** The store calls of a prepared write, without saving a history document (replay of a saved journal). */
  async carryOut({ journal, deletes, items }: PreparedWrite): Promise<void> {
    if (deletes.length > 0) await this.store.delete(deletes);
    if (items.length > 0) await this.store.upsert(items);
    this.forget(deletes);
    for (const item of items) {
      this.hashes.set(item.record.uri, item.hash);
      this.entries.remember(item.record);
    }
    if (journal.aspects) await this.store.updateAspects(journal.aspects);
  }

  /**
   * On open, with the tree loaded from the store state with the journal laid over it (`withJournal`): writes what
   * the store lacks of the journaled write (the process died between the history document and the store calls).
   * Nothing is written when the store already holds it all.
   */
  async complete(
    journal: WriteJournal,
    storedAspects: readonly AspectRecord[],
    storedRecords: readonly StoredRecord[],
  ): Promise<void> {
    const stored = new Map(storedRecords.map(({ record }) => [record.uri, record]));
    const uris = [
      ...journal.records.filter((record) => !sameJson(stored.get(record.uri), record)).map((r) => r.uri),
      ...journal.deleted.filter((uri) => stored.has(uri)),
    ];
    const aspects =
      journal.aspects !== null && !sameJson(applyAspectsDelta(storedAspects, journal.aspects), storedAspects)
        ? journal.aspects
        : null;
    if (uris.length === 0 && !aspects) return;
    await this.carryOut(await this.prepare(uris, aspects, false));
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return a !== undefined && canonicalJson(a as JsonValue) === canonicalJson(b as JsonValue);
}
