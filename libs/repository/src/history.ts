import { z } from 'zod';
import { AppliedKeys, AppliedKeysJson, type AppliedKeysOptions } from './applied-keys';
import { ResourceError } from './errors';
import { applyAspectsDelta, AspectsDelta, wholeAspects } from './aspects-delta';
import { cloneJson } from './json';
import { AspectRecord, ElementRecord } from './model';
import type { StoredRecord } from './store.port';
import { UndoLog, UndoLogJson, type UndoLogOptions } from './undo';

/**
 * What the store must hold once a write is done, for everything the write touched: the current records, the uris
 * that no longer exist, and what changed in the aspect list (`AspectsDelta`; null when nothing). A journal saved
 * before deltas holds the whole aspect list there: it is read as the delta that sets it.
 */
export const WriteJournal = z.object({
  records: z.array(ElementRecord),
  deleted: z.array(z.string()),
  aspects: z.union([AspectsDelta, z.array(AspectRecord).transform(wholeAspects)]).nullable(),
});
export type WriteJournal = z.infer<typeof WriteJournal>;

/**
 * The history document: the one document the repository saves (`ResourceStore.saveUndo`) with every write, as that
 * write's commit point. It holds the undo log, the applied idempotency keys and the journal of the write itself,
 * and is saved BEFORE the write's records: a crash after it is completed on the next open (the journal is replayed),
 * a crash before it leaves nothing of the write. So the writes, their undo entries and their idempotency key are
 * either all durable or all absent.
 *
 * `applied` and `journal` were added after version 1 shipped; both are optional so that older documents still
 * load (schemaVersion stays 1: an older build reading a newer document just ignores the two fields).
 */
export const HistoryJson = UndoLogJson.extend({
  applied: AppliedKeysJson.optional(),
  journal: WriteJournal.optional(),
});
export type HistoryJson = z.infer<typeof HistoryJson>;

export interface History {
  readonly undoLog: UndoLog;
  readonly appliedKeys: AppliedKeys;
  /** The newest write's journal; absent in documents saved before journals existed. */
  readonly journal: WriteJournal | null;
}

/** Reads a saved history document (null: never saved). Throws VALIDATION_FAILED when malformed. */
export function parseHistory(
  json: unknown,
  options: { undo?: UndoLogOptions; appliedKeys?: AppliedKeysOptions } = {},
): History {
  if (json === null || json === undefined) {
    return {
      undoLog: new UndoLog(options.undo),
      appliedKeys: AppliedKeys.empty(options.appliedKeys),
      journal: null,
    };
  }
  const parsed = HistoryJson.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ResourceError(
      'VALIDATION_FAILED',
      `Invalid history document: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'malformed'}`,
    );
  }
  return {
    undoLog: UndoLog.fromJSON(parsed.data, options.undo),
    appliedKeys: AppliedKeys.fromJSON(parsed.data.applied ?? [], options.appliedKeys),
    journal: parsed.data.journal ?? null,
  };
}

/** The document to save for the given state. */
export function historyJson(undoLog: UndoLog, appliedKeys: AppliedKeys, journal: WriteJournal): HistoryJson {
  return { ...undoLog.toJSON(), applied: appliedKeys.toJSON(), journal };
}

/**
 * The store state with the journal laid over it: the state the newest write left, whether or not the process lived
 * to write all of it to the store. Throws CONFLICT when the journal's aspect change does not fit the stored list.
 */
export function withJournal(
  aspects: AspectRecord[],
  stored: readonly StoredRecord[],
  journal: WriteJournal | null,
): { aspects: AspectRecord[]; records: ElementRecord[] } {
  const records = new Map(stored.map(({ record }) => [record.uri, record]));
  if (!journal) return { aspects, records: [...records.values()] };
  for (const uri of journal.deleted) records.delete(uri);
  // Copies: the tree takes the records over, and the journal is still read after that (`StoreWriter.complete`).
  for (const record of journal.records) records.set(record.uri, cloneJson(record));
  return {
    aspects: journal.aspects ? applyAspectsDelta(aspects, journal.aspects) : aspects,
    records: [...records.values()],
  };
}
