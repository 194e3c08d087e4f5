import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { Backlog, type BacklogEntry } from './backlog';
import { ResourceError } from './errors';
import { guard, unavailable, withOperationIndex } from './failures';
import type { JsonObject } from './json';
import { type Aspect, contentHash, contextView, type ElementRecord, embeddingText } from './model';
import {
  type AspectConfig,
  aspectFromConfig,
  type Operation,
  parseAction,
  parseAspectConfig,
  parseOperation,
  type ReversibleAction,
} from './operations';
import { AsyncMutex } from './mutex';
import type { Embedder, ResourceStore, SegmentsRequest, SegmentsResult, UpsertItem } from './store.port';
import { TreeTransaction } from './transaction';
import { type FindResult, ResourceTree, type TreeSnapshot } from './tree';
import { type UndoEntry, UndoLog } from './undo';

export type ChangeCause = 'apply' | 'relationships' | 'aspect_added' | 'aspect_removed' | 'undo' | 'redo';

/** Emitted after each committed write. */
export interface ChangeEvent {
  readonly uris: string[];
  readonly cause: ChangeCause;
}

export interface WriteOptions {
  /** Undo group: writes sharing a group are undone together. Multi-op applies get a fresh group when absent. */
  readonly group?: string;
}

export interface ApplyOutcome {
  /** The inverse of each applied operation, in application order (apply them reversed to undo by hand). */
  readonly inverses: Operation[];
  readonly group: string | null;
  readonly uris: string[];
}

export interface ExecuteOutcome {
  /** The inverse of each action, in application order. */
  readonly inverses: ReversibleAction[];
  readonly group: string | null;
  readonly uris: string[];
}

export interface UndoRedoOutcome {
  readonly action: 'undo' | 'redo';
  /** False when the stack was empty. */
  readonly performed: boolean;
  readonly count: number;
  readonly descriptions: string[];
  readonly message: string;
  /** Every URI the replayed actions touched. */
  readonly uris: string[];
}

export interface SearchResult {
  readonly uri: string;
  readonly score: number;
  /** The element's contextView. */
  readonly element: JsonObject;
}

export interface RepositoryOptions {
  readonly undoCap?: number;
  readonly clock?: () => Date;
  readonly newId?: () => string;
}

/**
 * The knowledge repository: a ResourceTree (in-memory truth), an UndoLog and a Backlog, persisted through a
 * ResourceStore and indexed through an Embedder. All writes are serialised by one mutex and are atomic: a write
 * that fails (bad op, store or embedder outage) leaves tree, undo log and store as they were.
 *
 * Errors are ResourceErrors: INVALID_URI, NOT_FOUND, ALREADY_EXISTS, VALIDATION_FAILED (caller mistakes),
 * UNAVAILABLE (store/embedder failed), CONFLICT (inconsistent state).
 */
export class ResourceRepository {
  private readonly mutex = new AsyncMutex();
  private readonly listeners = new Set<(event: ChangeEvent) => void>();

  private constructor(
    private readonly store: ResourceStore,
    private readonly embedder: Embedder,
    private readonly tree: ResourceTree,
    private undoLog: UndoLog,
    private backlog: Backlog,
    /** uri → content hash of the vector the store holds. */
    private readonly hashes: Map<string, string>,
    private readonly options: RepositoryOptions,
  ) {}

  /**
   * Loads the store's state. Orphan records (unreachable from any aspect) are deleted from the store; records
   * whose stored hash does not match their content are re-embedded. Throws UNAVAILABLE when the store fails.
   */
  static async open(
    store: ResourceStore,
    embedder: Embedder,
    options: RepositoryOptions = {},
  ): Promise<ResourceRepository> {
    const state = await guard('load the store', () => store.load());
    const tree = new ResourceTree();
    const { orphans } = tree.load(
      state.aspects,
      state.records.map((stored) => stored.record),
    );
    const undoOptions = {
      ...(options.undoCap ? { cap: options.undoCap } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    };
    const backlogOptions = {
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.newId ? { newId: options.newId } : {}),
    };
    const undo = state.undo ? UndoLog.fromJSON(state.undo, undoOptions) : new UndoLog(undoOptions);
    const backlog = state.backlog
      ? Backlog.fromJSON(state.backlog, backlogOptions)
      : new Backlog(backlogOptions);
    const hashes = new Map(state.records.map((stored) => [stored.record.uri, stored.hash]));
    const repo = new ResourceRepository(store, embedder, tree, undo, backlog, hashes, options);
    if (orphans.length > 0) {
      await guard('delete orphan records', () => store.delete(orphans));
      for (const uri of orphans) hashes.delete(uri);
    }
    const stale = tree
      .snapshot()
      .records.filter((record) => hashes.get(record.uri) !== contentHash(record))
      .map((record) => record.uri);
    if (stale.length > 0) await repo.persistRecords(stale, false);
    return repo;
  }

  // ---- writes -----------------------------------------------------------------------------------------------------

  /**
   * Applies operations atomically (all or none) and records their inverses as one undo group. Throws
   * VALIDATION_FAILED (malformed op; details.operationIndex says which), and the tree errors of the failing op.
   */
  async apply(ops: readonly unknown[], options: WriteOptions = {}): Promise<ApplyOutcome> {
    const parsed = ops.map((op, index) => withOperationIndex(index, ops.length, () => parseOperation(op)));
    return this.write('apply', (tx) => {
      parsed.forEach((op, index) =>
        withOperationIndex(index, parsed.length, () => tx.execute({ method: 'apply', op })),
      );
      const group = options.group ?? (parsed.length > 1 ? this.newId() : null);
      for (const inverse of tx.inverses) this.undoLog.record(inverse, group);
      const inverses = tx.inverses.map(
        (inverse) => (inverse as Extract<ReversibleAction, { method: 'apply' }>).op,
      );
      return { inverses, group, uris: [...tx.subjects] };
    });
  }

  /**
   * Executes reversible actions of any kind (operations, relationships, aspect create/remove) atomically, recording
   * their inverses as one undo group. Returns the inverses in application order and every URI touched. Throws
   * VALIDATION_FAILED (details.operationIndex says which action) and the tree errors of the failing action.
   */
  async execute(actions: readonly unknown[], options: WriteOptions = {}): Promise<ExecuteOutcome> {
    const parsed = actions.map((action, index) =>
      withOperationIndex(index, actions.length, () => parseAction(action)),
    );
    return this.write('apply', (tx) => {
      const inverses = parsed.map((action, index) =>
        withOperationIndex(index, parsed.length, () => tx.execute(action)),
      );
      const group = options.group ?? (parsed.length > 1 ? this.newId() : null);
      for (const inverse of inverses) this.undoLog.record(inverse, group);
      return { inverses, group, uris: [...tx.subjects] };
    });
  }

  /** Sets source → target descriptions (one direction; [] removes). Returns the old list. See ResourceTree. */
  updateRelationships(
    sourceUri: string,
    targetUri: string,
    relationships: readonly string[],
    options: WriteOptions = {},
  ): Promise<string[]> {
    return this.write('relationships', (tx) => {
      const inverse = tx.execute({
        method: 'update_relationships',
        source_uri: sourceUri,
        target_uri: targetUri,
        relationships: [...relationships],
      });
      this.undoLog.record(inverse, options.group ?? null);
      return inverse.method === 'update_relationships' ? inverse.relationships : [];
    });
  }

  /**
   * Creates an empty aspect from its config (`{description?, children_keys?, ...metadata}`, parsed here). Throws
   * ALREADY_EXISTS, INVALID_URI (name), VALIDATION_FAILED (config, children keys).
   */
  addAspect(name: string, input: z.input<typeof AspectConfig>, options: WriteOptions = {}): Promise<Aspect> {
    return this.write('aspect_added', (tx) => {
      const config = parseAspectConfig(input);
      const inverse = tx.execute({ method: 'add_aspect', name, config, elements: [] });
      this.undoLog.record(inverse, options.group ?? null);
      return aspectFromConfig(name, config);
    });
  }

  /** Removes an aspect with all its elements (undo restores both). Returns the aspect. Throws NOT_FOUND. */
  removeAspect(name: string, options: WriteOptions = {}): Promise<{ aspect: Aspect; elementCount: number }> {
    return this.write('aspect_removed', (tx) => {
      const aspect = this.tree.getAspect(name);
      const before = this.tree.size;
      const inverse = tx.execute({ method: 'remove_aspect', name });
      this.undoLog.record(inverse, options.group ?? null);
      return { aspect: aspect as Aspect, elementCount: before - this.tree.size };
    });
  }

  /** Reverts the newest undo group (last step first). */
  undo(): Promise<UndoRedoOutcome> {
    return this.replay('undo');
  }

  /** Re-applies the newest undone group. */
  redo(): Promise<UndoRedoOutcome> {
    return this.replay('redo');
  }

  // ---- reads ------------------------------------------------------------------------------------------------------

  /** See `ResourceTree.find`. Throws INVALID_URI. */
  find(uri: string): FindResult | null {
    return this.tree.find(uri);
  }

  /** The whole tree state (aspects with root ids, records pre-order). */
  snapshot(): TreeSnapshot {
    return this.tree.snapshot();
  }

  /**
   * Hybrid search; hits are returned as contextViews, best first; hits the tree no longer has are dropped.
   * Throws VALIDATION_FAILED (empty query), NOT_FOUND (unknown aspect), UNAVAILABLE.
   */
  async search(query: string, options: { aspect?: string; limit?: number } = {}): Promise<SearchResult[]> {
    if (query.trim().length === 0) throw new ResourceError('VALIDATION_FAILED', 'The search query is empty');
    if (options.aspect !== undefined && !this.tree.getAspect(options.aspect)) {
      throw new ResourceError('NOT_FOUND', `Aspect ${options.aspect} not found`, {
        uri: `/${options.aspect}`,
      });
    }
    const [vector] = await guard('embed the query', () => this.embedder.embed([query]));
    const hits = await guard('search the store', () =>
      this.store.search({
        text: query,
        vector: vector ?? [],
        limit: options.limit ?? 20,
        ...(options.aspect !== undefined ? { aspect: options.aspect } : {}),
      }),
    );
    const results: SearchResult[] = [];
    for (const hit of hits) {
      const record = this.tree.get(hit.uri);
      if (record) results.push({ uri: hit.uri, score: hit.score, element: contextView(record) });
    }
    return results;
  }

  /** Property-filtered segments, computed by the store (see `SegmentData`). Throws UNAVAILABLE. */
  segments(request: SegmentsRequest): Promise<SegmentsResult> {
    return guard('read segments', () => this.store.segments(request));
  }

  /** The newest undo entries (or redo entries), newest first. */
  recentActions(n: number, stack: 'undo' | 'redo' = 'undo'): UndoEntry[] {
    return this.undoLog.peek(n, stack);
  }

  // ---- backlog ----------------------------------------------------------------------------------------------------

  addBacklog(content: string, priority?: number): Promise<BacklogEntry> {
    return this.backlogWrite((backlog) => backlog.add(content, priority));
  }

  listBacklog(): BacklogEntry[] {
    return this.backlog.list();
  }

  removeBacklog(id: string): Promise<boolean> {
    return this.backlogWrite((backlog) => backlog.remove(id));
  }

  /** Removes and returns the `n` most important entries. */
  takeBacklog(n: number): Promise<BacklogEntry[]> {
    return this.backlogWrite((backlog) => backlog.take(n));
  }

  // ---- lifecycle --------------------------------------------------------------------------------------------------

  /** Subscribes to committed writes; returns the unsubscribe function. Listener errors are swallowed. */
  onChange(listener: (event: ChangeEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Waits for pending writes, then closes the store. */
  async close(): Promise<void> {
    await this.mutex.idle();
    await this.store.close();
  }

  // ---- internals --------------------------------------------------------------------------------------------------

  private replay(which: 'undo' | 'redo'): Promise<UndoRedoOutcome> {
    return this.write(which, async (tx) => {
      const run = (action: ReversibleAction): ReversibleAction => tx.execute(action);
      const result = which === 'undo' ? await this.undoLog.undo(run) : await this.undoLog.redo(run);
      if (!result) {
        return {
          action: which,
          performed: false,
          count: 0,
          descriptions: [],
          message: `Nothing to ${which}`,
          uris: [],
        };
      }
      const message = `${which === 'undo' ? 'Undid' : 'Redid'} ${result.count} action(s): ${result.descriptions.join('; ')}`;
      return {
        action: which,
        performed: true,
        count: result.count,
        descriptions: result.descriptions,
        message,
        uris: [...tx.subjects],
      };
    });
  }

  /**
   * Runs `body` in the mutex against a transaction, then persists what it touched plus the undo log. On any
   * failure the tree and the undo log are restored; a store failure is reported as UNAVAILABLE after a
   * best-effort compensating write of the restored records.
   */
  private write<T>(cause: ChangeCause, body: (tx: TreeTransaction) => T | Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      const undoBefore = this.undoLog.toJSON();
      const tx = new TreeTransaction(this.tree);
      let result: T;
      try {
        result = await body(tx);
      } catch (err) {
        tx.rollback();
        this.restoreUndo(undoBefore);
        throw err;
      }
      if (tx.inverses.length === 0) return result;
      try {
        await this.persistRecords([...tx.touched], false);
        if (tx.aspectsChanged) await this.store.saveAspects(this.tree.aspectRecords());
        await this.store.saveUndo(this.undoLog.toJSON());
      } catch (err) {
        tx.rollback();
        this.restoreUndo(undoBefore);
        await this.compensate(tx).catch(() => undefined);
        throw unavailable('persist the write', err);
      }
      this.emit({ uris: [...tx.subjects], cause });
      return result;
    });
  }

  /** Writes the current state of `uris` (upsert or delete), embedding only records whose content hash changed. */
  private async persistRecords(uris: readonly string[], forceEmbed: boolean): Promise<void> {
    const deletes: string[] = [];
    const pending: { record: ElementRecord; hash: string; text: string; embed: boolean }[] = [];
    for (const uri of uris) {
      const record = this.tree.get(uri);
      if (!record) {
        deletes.push(uri);
        continue;
      }
      const hash = contentHash(record);
      pending.push({
        record,
        hash,
        text: embeddingText(record),
        embed: forceEmbed || this.hashes.get(uri) !== hash,
      });
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
    if (deletes.length > 0) await this.store.delete(deletes);
    if (items.length > 0) await this.store.upsert(items);
    for (const uri of deletes) this.hashes.delete(uri);
    for (const item of items) this.hashes.set(item.record.uri, item.hash);
  }

  /** After a failed persist: rewrite the (restored) state of everything the write touched, vectors included. */
  private async compensate(tx: TreeTransaction): Promise<void> {
    await this.persistRecords([...tx.touched], true);
    if (tx.aspectsChanged) await this.store.saveAspects(this.tree.aspectRecords());
    await this.store.saveUndo(this.undoLog.toJSON());
  }

  private restoreUndo(json: ReturnType<UndoLog['toJSON']>): void {
    this.undoLog = UndoLog.fromJSON(json, {
      cap: this.undoLog.cap,
      ...(this.options.clock ? { clock: this.options.clock } : {}),
    });
  }

  private backlogWrite<T>(change: (backlog: Backlog) => T): Promise<T> {
    return this.mutex.run(async () => {
      const before = this.backlog.toJSON();
      const result = change(this.backlog);
      try {
        await this.store.saveBacklog(this.backlog.toJSON());
      } catch (err) {
        this.backlog = Backlog.fromJSON(before, {
          ...(this.options.clock ? { clock: this.options.clock } : {}),
          ...(this.options.newId ? { newId: this.options.newId } : {}),
        });
        throw unavailable('save the backlog', err);
      }
      return result;
    });
  }

  private emit(event: ChangeEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure must not undo or fail a committed write.
      }
    }
  }

  private newId(): string {
    return (this.options.newId ?? randomUUID)();
  }
}
