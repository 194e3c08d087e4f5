import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { AppliedKeys } from './applied-keys';
import { wholeAspects } from './aspects-delta';
import type { BacklogEntry } from './backlog';
import { ChangeListeners } from './change-listeners';
import { CommitGate } from './commit-gate';
import { unavailable, withOperationIndex } from './failures';
import { historyJson, type WriteJournal } from './history';
import type { Aspect } from './model';
import {
  type AspectConfig,
  aspectFromConfig,
  parseAspectConfig,
  parseOperation,
  type ReversibleAction,
} from './operations';
import { PendingRepair } from './pending-repair';
import { RepositoryBacklog } from './repository-backlog';
import { executeInTransaction, parseActions, replayInTransaction } from './repository-actions';
import { type LoadedRepository, loadRepository, settleLoaded } from './repository-open';
import { searchRepository } from './repository-search';
import { buildSegments } from './segments';
import type { Embedder, ResourceStore, SegmentsRequest, SegmentsResult } from './store.port';
import type {
  ApplyOutcome,
  ChangeCause,
  ChangeEvent,
  ExecuteOutcome,
  Idempotency,
  OnceResult,
  RepositoryOptions,
  SearchResult,
  UndoRedoOutcome,
  WriteOptions,
} from './repository-types';
import { type PreparedWrite, StoreWriter } from './store-writer';
import { TreeTransaction } from './transaction';
import { ResourceTree } from './tree';
import type { FindResult, TreeSnapshot } from './tree-types';
import { type UndoEntry, UndoLog, type UndoLogJson } from './undo';

/**
 * The knowledge repository: a ResourceTree (in-memory truth), an UndoLog, the applied idempotency keys and a
 * Backlog, persisted through a ResourceStore and indexed through an Embedder. All writes are serialised by one mutex
 * and are atomic: a write that fails (bad op, store or embedder outage) leaves tree, undo log, keys and store as
 * they were; a process that dies during a write leaves it wholly absent or, once its history document is saved,
 * wholly present after the next open (see `HistoryJson`).
 *
 * Errors are ResourceErrors: INVALID_URI, NOT_FOUND, ALREADY_EXISTS, VALIDATION_FAILED (caller mistakes),
 * UNAVAILABLE (store/embedder failed), CONFLICT (inconsistent state).
 */
export class ResourceRepository {
  private readonly gate = new CommitGate();
  private readonly listeners = new ChangeListeners<ChangeEvent>();
  /**
   * Store work an earlier write left unfinished (the store failed after the commit point, or a compensation failed):
   * done before any later write saves a history document (which would replace the journal that describes it), and
   * retried in the background meanwhile.
   */
  private readonly repair = new PendingRepair((run) => this.gate.exclusive(run));
  private readonly backlog: RepositoryBacklog;
  private readonly tree: ResourceTree;
  private readonly writer: StoreWriter;
  private undoLog: UndoLog;
  private appliedKeys: AppliedKeys;

  private constructor(
    private readonly store: ResourceStore,
    private readonly embedder: Embedder,
    loaded: LoadedRepository,
    private readonly options: RepositoryOptions,
  ) {
    this.tree = loaded.tree;
    this.writer = loaded.writer;
    this.undoLog = loaded.history.undoLog;
    this.appliedKeys = loaded.history.appliedKeys;
    this.backlog = new RepositoryBacklog(loaded.backlog, store, options, (run) => this.gate.change(run));
  }

  /**
   * Loads the store's state. The newest write's journal is replayed first (the store may lack part of that write
   * when the process died during it); then orphan records (unreachable from any aspect) are deleted from the store
   * and records whose stored hash does not match their content are re-embedded. Throws UNAVAILABLE when the store
   * or the embedder fails, VALIDATION_FAILED when the history document is malformed.
   */
  static async open(
    store: ResourceStore,
    embedder: Embedder,
    options: RepositoryOptions = {},
  ): Promise<ResourceRepository> {
    const loaded = await loadRepository(store, embedder, options);
    const repo = new ResourceRepository(store, embedder, loaded, options);
    await settleLoaded(store, loaded, options);
    return repo;
  }

  // ---- writes -----------------------------------------------------------------------------------------------------

  /**
   * Applies operations atomically (all or none) and records their inverses as one undo group. Throws
   * VALIDATION_FAILED (malformed op; details.operationIndex says which), and the tree errors of the failing op.
   */
  async apply(ops: readonly unknown[], options: WriteOptions = {}): Promise<ApplyOutcome> {
    const parsed = ops.map((op, index) => withOperationIndex(index, ops.length, () => parseOperation(op)));
    const actions = parsed.map((op): ReversibleAction => ({ method: 'apply', op }));
    return this.write('apply', (tx) => {
      const outcome = this.executeIn(tx, actions, options);
      const inverses = outcome.inverses.map(
        (inverse) => (inverse as Extract<ReversibleAction, { method: 'apply' }>).op,
      );
      return { ...outcome, inverses };
    });
  }

  /**
   * Executes reversible actions of any kind (operations, relationships, aspect create/remove) atomically, recording
   * their inverses as one undo group. Returns the inverses in application order and every URI touched. Throws
   * VALIDATION_FAILED (details.operationIndex says which action) and the tree errors of the failing action.
   */
  async execute(actions: readonly unknown[], options: WriteOptions = {}): Promise<ExecuteOutcome> {
    const parsed = parseActions(actions);
    return this.write('apply', (tx) => this.executeIn(tx, parsed, options));
  }

  /**
   * `execute` with actions worked out by `build` in the write's own turn, from the state every earlier write left: for
   * a change that depends on what exists (an import that replaces the aspects it finds), which two concurrent callers
   * must not both work out from the state before either ran. `build` runs synchronously and may read the repository
   * (`find`, `snapshot`); what it throws is thrown, nothing applied.
   */
  async executeBuilt(build: () => readonly unknown[], options: WriteOptions = {}): Promise<ExecuteOutcome> {
    return this.write('apply', (tx) => this.executeIn(tx, parseActions(build()), options));
  }

  /**
   * `execute` at most once per idempotency key: the first call applies the actions and records the key with the
   * reply `idempotency.reply` builds, in the same durable write; a later call with the key (a retry, possibly after
   * a restart) applies nothing and returns the recorded reply, whatever its actions are. Keys are forgotten past
   * the bounds of `RepositoryOptions.appliedKeys`.
   *
   * Undo does not forget a key: a write that was undone and is then retried with its key stays undone (the
   * retry gets the original reply). A key names one attempt at one intent (a tool invocation), so its retry is not
   * a new request; re-applying it would silently revert the user's undo. A new intent comes with a new key.
   *
   * Throws like `execute`; a failed write records no key, so its retry runs again.
   */
  async executeOnce<R>(
    actions: readonly unknown[],
    idempotency: Idempotency<R>,
    options: WriteOptions = {},
  ): Promise<OnceResult<R>> {
    return this.write('apply', (tx): OnceResult<R> => {
      const recorded = this.appliedKeys.get(idempotency.key);
      if (recorded !== undefined) return { replayed: true, reply: recorded };
      // Parsed only now: a retry is answered from its key whatever its actions are (regenerated content may differ).
      const outcome = this.executeIn(tx, parseActions(actions), options);
      const reply = idempotency.reply(outcome);
      this.appliedKeys = this.appliedKeys.with(idempotency.key, reply);
      return { replayed: false, reply, outcome };
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

  /**
   * Runs `read` against committed state only: waits while a write has changed the tree, the undo log or the backlog
   * but not committed yet (it may still be rolled back), then runs `read` synchronously, so no write can start in
   * between. The bus handlers read through it; the plain read methods below show the in-memory state as it is.
   */
  committed<T>(read: () => T): Promise<T> {
    return this.gate.committed(read);
  }

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
  search(query: string, options: { aspect?: string; limit?: number } = {}): Promise<SearchResult[]> {
    return searchRepository(this.tree, this.store, this.embedder, query, options, (read) =>
      this.committed(read),
    );
  }

  /**
   * Property-filtered segments (see `SegmentData`) of the committed state, built from the tree like the in-memory
   * store builds them: the tree holds every stored record already, so a request costs no store query (a LanceDB key
   * lookup of 5–10 uris took ~2 ms at 100k rows, most of it the query's fixed cost).
   */
  segments(request: SegmentsRequest): Promise<SegmentsResult> {
    return this.committed(() => buildSegments(this.tree.segmentSource(), request));
  }

  /** The newest undo entries (or redo entries), newest first. */
  recentActions(n: number, stack: 'undo' | 'redo' = 'undo'): UndoEntry[] {
    return this.undoLog.peek(n, stack);
  }

  // ---- backlog ----------------------------------------------------------------------------------------------------

  addBacklog(content: string, priority?: number): Promise<BacklogEntry> {
    return this.backlog.add(content, priority);
  }

  listBacklog(): BacklogEntry[] {
    return this.backlog.list();
  }

  removeBacklog(id: string): Promise<boolean> {
    return this.backlog.remove(id);
  }

  /** Removes and returns the `n` most important entries. */
  takeBacklog(n: number): Promise<BacklogEntry[]> {
    return this.backlog.take(n);
  }

  // ---- lifecycle --------------------------------------------------------------------------------------------------

  /** Subscribes to committed writes; returns the unsubscribe function. Listener errors are swallowed. */
  onChange(listener: (event: ChangeEvent) => void): () => void {
    return this.listeners.add(listener);
  }

  /** Waits for pending writes, then closes the store (unfinished store work stays journaled for the next open). */
  async close(): Promise<void> {
    this.repair.close();
    await this.gate.idle();
    await this.store.close();
  }

  /** True while store work of a committed write is still to be done (reads from the store may lag behind). */
  get repairPending(): boolean {
    return this.repair.isPending;
  }

  // ---- internals --------------------------------------------------------------------------------------------------

  private executeIn(tx: TreeTransaction, parsed: ReversibleAction[], options: WriteOptions): ExecuteOutcome {
    return executeInTransaction(tx, this.undoLog, parsed, { ...options, newId: () => this.newId() });
  }

  private replay(which: 'undo' | 'redo'): Promise<UndoRedoOutcome> {
    return this.write(which, (tx) => replayInTransaction(this.undoLog, which, tx));
  }

  /**
   * Runs `body` in the mutex against a transaction, then persists what it touched with the undo log and keys: the
   * history document (with the write's journal) first, then the records and aspects (`StoreWriter`).
   *
   * The history document is the commit point. A failure before it restores the tree, the undo log and the keys and
   * is reported as UNAVAILABLE (after a compensating write of the restored state, in case the failed save landed). A
   * store failure after it does not undo the write, which is durable: the store work left is finished before the
   * next write and retried in the background until then (and replayed from the journal by the next open).
   */
  private write<T>(cause: ChangeCause, body: (tx: TreeTransaction) => T | Promise<T>): Promise<T> {
    return this.gate.change(() => this.writeInMutex(cause, body));
  }

  private async writeInMutex<T>(
    cause: ChangeCause,
    body: (tx: TreeTransaction) => T | Promise<T>,
  ): Promise<T> {
    await this.repair.finish();
    const undoBefore = this.undoLog.toJSON();
    const keysBefore = this.appliedKeys;
    const tx = new TreeTransaction(this.tree);
    const restore = () => {
      tx.rollback();
      this.restoreHistory(undoBefore, keysBefore);
    };
    let result: T;
    try {
      result = await body(tx);
    } catch (err) {
      restore();
      throw err;
    }
    if (tx.inverses.length === 0 && this.appliedKeys === keysBefore) return result;
    let prepared: PreparedWrite;
    try {
      prepared = await this.writer.prepare([...tx.touched], tx.aspectsDelta(), false);
    } catch (err) {
      restore(); // nothing was written yet
      throw unavailable('persist the write', err);
    }
    try {
      await this.store.saveUndo(this.historyJson(prepared.journal));
    } catch (err) {
      restore();
      const touched = [...tx.touched];
      const compensate = () => this.compensate(touched, tx.aspectsChanged);
      await compensate().catch(() => this.repair.set(compensate));
      throw unavailable('persist the write', err);
    }
    try {
      await this.writer.carryOut(prepared);
    } catch {
      this.repair.set(() => this.writer.carryOut(prepared));
    }
    this.listeners.emit({ uris: [...tx.subjects], cause });
    return result;
  }

  /**
   * After a failed save of the history document (it may have landed anyway): persist the restored state of
   * everything the write touched, vectors included (the store may hold the failed write's vectors), and the whole
   * aspect list when the write changed it, with the restored history.
   */
  private async compensate(touched: readonly string[], aspectsChanged: boolean): Promise<void> {
    const aspects = aspectsChanged ? wholeAspects(this.tree.aspectRecords()) : null;
    const prepared = await this.writer.prepare(touched, aspects, true);
    await this.writer.commit((journal) => this.historyJson(journal), prepared);
  }

  private historyJson(journal: WriteJournal): unknown {
    return historyJson(this.undoLog, this.appliedKeys, journal);
  }

  private restoreHistory(undo: UndoLogJson, keys: AppliedKeys): void {
    this.undoLog = UndoLog.fromJSON(undo, {
      cap: this.undoLog.cap,
      ...(this.options.clock ? { clock: this.options.clock } : {}),
    });
    this.appliedKeys = keys;
  }

  private newId(): string {
    return (this.options.newId ?? randomUUID)();
  }
}
