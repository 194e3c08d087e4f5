import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ResourceError } from './errors';

/** A piece of future work noted by a tool (e.g. "create the Azure Sect's founder"). */
export const BacklogEntry = z.object({
  id: z.string(),
  content: z.string(),
  /** 0 (lowest) .. 10 (highest). */
  priority: z.int().min(0).max(10),
  /** ISO-8601. */
  createdAt: z.string(),
});
export type BacklogEntry = z.infer<typeof BacklogEntry>;

export const BacklogJson = z.object({ schemaVersion: z.literal(1), entries: z.array(BacklogEntry) });
export type BacklogJson = z.infer<typeof BacklogJson>;

export const DEFAULT_BACKLOG_PRIORITY = 5;

export interface BacklogOptions {
  readonly clock?: () => Date;
  readonly newId?: () => string;
}

/** Backlog entries ordered by priority (highest first), then age (oldest first). Identical content is kept once. */
export class Backlog {
  // Kept in insertion order; ordering is computed on read so equal timestamps stay stable.
  private entries: BacklogEntry[] = [];
  private readonly clock: () => Date;
  private readonly newId: () => string;

  constructor(options: BacklogOptions = {}) {
    this.clock = options.clock ?? (() => new Date());
    this.newId = options.newId ?? randomUUID;
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * Adds an entry; when one with the same (trimmed) content exists it is kept, with the higher of both priorities.
   * Throws VALIDATION_FAILED on empty content or a priority outside 0..10.
   */
  add(content: string, priority: number = DEFAULT_BACKLOG_PRIORITY): BacklogEntry {
    const text = content.trim();
    if (text.length === 0) throw new ResourceError('VALIDATION_FAILED', 'Backlog content must not be empty');
    if (!Number.isInteger(priority) || priority < 0 || priority > 10) {
      throw new ResourceError(
        'VALIDATION_FAILED',
        `Backlog priority must be an integer in 0..10, got ${priority}`,
        {
          priority,
        },
      );
    }
    const existing = this.entries.find((entry) => entry.content === text);
    if (existing) {
      existing.priority = Math.max(existing.priority, priority);
      return { ...existing };
    }
    const entry: BacklogEntry = {
      id: this.newId(),
      content: text,
      priority,
      createdAt: this.clock().toISOString(),
    };
    this.entries.push(entry);
    return { ...entry };
  }

  /** All entries: priority descending, then oldest first. */
  list(): BacklogEntry[] {
    return this.entries
      .map((entry, index) => ({ entry, index }))
      .sort(
        (a, b) =>
          b.entry.priority - a.entry.priority ||
          a.entry.createdAt.localeCompare(b.entry.createdAt) ||
          a.index - b.index,
      )
      .map(({ entry }) => ({ ...entry }));
  }

  /** The first `n` entries of `list()`, without removing them. */
  top(n: number): BacklogEntry[] {
    return this.list().slice(0, Math.max(0, n));
  }

  /** Removes and returns the first `n` entries of `list()`. */
  take(n: number): BacklogEntry[] {
    const taken = this.top(n);
    const ids = new Set(taken.map((entry) => entry.id));
    this.entries = this.entries.filter((entry) => !ids.has(entry.id));
    return taken;
  }

  /** Removes an entry; false when no entry has that id. */
  remove(id: string): boolean {
    const before = this.entries.length;
    this.entries = this.entries.filter((entry) => entry.id !== id);
    return this.entries.length < before;
  }

  clear(): void {
    this.entries = [];
  }

  toJSON(): BacklogJson {
    return { schemaVersion: 1, entries: this.entries.map((entry) => ({ ...entry })) };
  }

  /** Throws VALIDATION_FAILED on a malformed document. */
  static fromJSON(json: unknown, options: BacklogOptions = {}): Backlog {
    const parsed = BacklogJson.safeParse(json);
    if (!parsed.success) {
      throw new ResourceError(
        'VALIDATION_FAILED',
        `Invalid backlog: ${parsed.error.issues[0]?.message ?? 'malformed'}`,
      );
    }
    const backlog = new Backlog(options);
    backlog.entries = parsed.data.entries.map((entry) => ({ ...entry }));
    return backlog;
  }
}
