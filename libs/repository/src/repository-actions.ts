import { withOperationIndex } from './failures';
import { parseAction, type ReversibleAction } from './operations';
import type { ExecuteOutcome, UndoRedoOutcome, WriteOptions } from './repository-types';
import type { TreeTransaction } from './transaction';
import type { UndoLog } from './undo';

// Running a write's actions inside its transaction: parsed actions with their undo group, and undo/redo.

/** Parses actions; throws VALIDATION_FAILED with details.operationIndex of the malformed one. */
export function parseActions(actions: readonly unknown[]): ReversibleAction[] {
  return actions.map((action, index) => withOperationIndex(index, actions.length, () => parseAction(action)));
}

/**
 * Runs parsed actions in `tx` and records their inverses in `undoLog` as one undo group (`options.group`, else a new
 * id from `newId` when there are several). Throws the failing action's error with details.operationIndex.
 */
export function executeInTransaction(
  tx: TreeTransaction,
  undoLog: UndoLog,
  parsed: readonly ReversibleAction[],
  options: WriteOptions & { newId: () => string },
): ExecuteOutcome {
  const inverses = parsed.map((action, index) =>
    withOperationIndex(index, parsed.length, () => tx.execute(action)),
  );
  const group = options.group ?? (parsed.length > 1 ? options.newId() : null);
  for (const inverse of inverses) undoLog.record(inverse, group);
  return { inverses, group, uris: [...tx.subjects] };
}

/**
 * Undo or redo of the newest group of `undoLog` inside a write's transaction: each action runs through `tx` (so the
 * write persists and can roll back what it touched), and the outcome says what ran.
 */
export async function replayInTransaction(
  undoLog: UndoLog,
  which: 'undo' | 'redo',
  tx: TreeTransaction,
): Promise<UndoRedoOutcome> {
  const run = (action: ReversibleAction): ReversibleAction => tx.execute(action);
  const result = which === 'undo' ? await undoLog.undo(run) : await undoLog.redo(run);
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
}
