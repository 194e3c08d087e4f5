import { z } from 'zod';
import { ResourceError } from './errors';
import { describeAction, ReversibleAction } from './operations';

/** One undoable (or redoable) step. Consecutive entries sharing a non-null `group` are undone together. */
export const UndoEntry = z.object({
  action: ReversibleAction,
  group: z.string().nullable(),
  description: z.string(),
  /** ISO-8601 time the entry was recorded. */
  at: z.string(),
});
export type UndoEntry = z.infer<typeof UndoEntry>;

/** The persisted form of an UndoLog. */
export const UndoLogJson = z.object({
  schemaVersion: z.literal(1),
  undo: z.array(UndoEntry),
  redo: z.array(UndoEntry),
});
export type UndoLogJson = z.infer<typeof UndoLogJson>;

/** What an undo/redo did. */
export interface UndoRedoResult {
  readonly group: string | null;
  /** How many actions ran. */
  readonly count: number;
  /** One line per action, in execution order. */
  readonly descriptions: string[];
}

/** Runs one action and returns its counter-action (what would reverse it again). */
export type ActionRunner = (action: ReversibleAction) => ReversibleAction | Promise<ReversibleAction>;

export interface UndoLogOptions {
  /** Maximum entries per stack; the oldest are dropped beyond it. Default 100. */
  readonly cap?: number;
  readonly clock?: () => Date;
}

type Stack = 'undo' | 'redo';

/**
 * Undo and redo stacks of reversible actions. A write records its inverses in the order it performed them, so the
 * top of the stack is the inverse of its last step: undoing a group runs the last step's inverse first.
 */
export class UndoLog {
  private undoStack: UndoEntry[] = [];
  private redoStack: UndoEntry[] = [];
  readonly cap: number;
  private readonly clock: () => Date;

  constructor(options: UndoLogOptions = {}) {
    this.cap = options.cap ?? 100;
    if (!Number.isInteger(this.cap) || this.cap < 1)
      throw new RangeError('UndoLog cap must be a positive integer');
    this.clock = options.clock ?? (() => new Date());
  }

  get undoSize(): number {
    return this.undoStack.length;
  }

  get redoSize(): number {
    return this.redoStack.length;
  }

  /** Records the inverse of a write just performed; clears the redo stack (a new write forks history). */
  record(inverse: ReversibleAction, group: string | null = null): void {
    this.push('undo', inverse, group);
    this.redoStack = [];
  }

  /**
   * Pops the newest undo group and runs each action through `run` (newest first), then pushes the counter-actions
   * onto the redo stack under the same group. If `run` throws, the group is put back, nothing is pushed, and the
   * error propagates (the caller rolls back what `run` already did). Returns null when there is nothing to undo.
   */
  undo(run: ActionRunner): Promise<UndoRedoResult | null> {
    return this.replay('undo', 'redo', run);
  }

  /** The mirror of `undo`: pops the newest redo group, pushes the counter-actions onto the undo stack (redo is kept). */
  redo(run: ActionRunner): Promise<UndoRedoResult | null> {
    return this.replay('redo', 'undo', run);
  }

  /** The newest `n` entries of a stack, newest first. */
  peek(n: number, stack: Stack = 'undo'): UndoEntry[] {
    const items = stack === 'undo' ? this.undoStack : this.redoStack;
    return items
      .slice(Math.max(0, items.length - n))
      .reverse()
      .map((entry) => structuredClone(entry));
  }

  /** Removes every entry of both stacks. */
  clear(): void {
    this.undoStack = [];
    this.redoStack = [];
  }

  toJSON(): UndoLogJson {
    return structuredClone({ schemaVersion: 1, undo: this.undoStack, redo: this.redoStack });
  }

  /** Rebuilds a log from its JSON form. Throws VALIDATION_FAILED on a malformed document. */
  static fromJSON(json: unknown, options: UndoLogOptions = {}): UndoLog {
    const parsed = UndoLogJson.safeParse(json);
    if (!parsed.success) {
      throw new ResourceError(
        'VALIDATION_FAILED',
        `Invalid undo log: ${parsed.error.issues[0]?.message ?? 'malformed'}`,
      );
    }
    const log = new UndoLog(options);
    log.undoStack = trimmed(parsed.data.undo, log.cap);
    log.redoStack = trimmed(parsed.data.redo, log.cap);
    return log;
  }

  private async replay(from: Stack, to: Stack, run: ActionRunner): Promise<UndoRedoResult | null> {
    const entries = this.popGroup(from);
    if (entries.length === 0) return null;
    const counters: ReversibleAction[] = [];
    try {
      for (const entry of entries) counters.push(await run(structuredClone(entry.action)));
    } catch (err) {
      this.stack(from).push(...entries.reverse());
      throw err;
    }
    const group = entries[0]?.group ?? null;
    for (const counter of counters) this.push(to, counter, group);
    return { group, count: entries.length, descriptions: entries.map((entry) => entry.description) };
  }

  /** Pops the consecutive top entries sharing the top's non-null group (one entry when its group is null), newest first. */
  private popGroup(stack: Stack): UndoEntry[] {
    const items = this.stack(stack);
    const top = items.pop();
    if (!top) return [];
    const popped = [top];
    if (top.group !== null) {
      while (items.length > 0 && items[items.length - 1]?.group === top.group)
        popped.push(items.pop() as UndoEntry);
    }
    return popped;
  }

  private push(stack: Stack, action: ReversibleAction, group: string | null): void {
    const items = this.stack(stack);
    items.push({
      action: structuredClone(action),
      group,
      description: describeAction(action),
      at: this.clock().toISOString(),
    });
    const kept = trimmed(items, this.cap);
    if (kept.length < items.length) items.splice(0, items.length - kept.length);
  }

  private stack(stack: Stack): UndoEntry[] {
    return stack === 'undo' ? this.undoStack : this.redoStack;
  }
}

/**
 * The newest entries of a stack within `cap`, dropping whole groups from the bottom so that no group is ever split
 * (undoing part of an atomic write would make a state that never existed). The newest group is always kept, even
 * when it alone is larger than the cap.
 */
function trimmed(items: readonly UndoEntry[], cap: number): UndoEntry[] {
  const newest = items[items.length - 1]?.group ?? null;
  let start = 0;
  while (items.length - start > cap) {
    const group = items[start]?.group ?? null;
    if (group !== null && group === newest) break;
    start += 1;
    if (group !== null) while (start < items.length && items[start]?.group === group) start += 1;
  }
  return items.slice(start);
}
