/** One key's value as read: the parsed JSON (undefined when there is none) and the revision a write must match. */
export interface CellRead {
  /** The stored JSON value; undefined when the key is missing or deleted. */
  readonly value: unknown;
  /** The revision of the key's last entry (a delete marker included); undefined when the key was never written. */
  readonly revision: number | undefined;
}

/**
 * Keys holding JSON values, written with compare-and-swap: what the thread store and the thread leases are built on,
 * over a KV bucket in production and over memory in tests (so both run the same protocol).
 */
export interface CasCells {
  /** Throws when the stored value is not JSON. */
  read(key: string): Promise<CellRead>;
  /** Writes `data` if the key is still at `revision` (undefined: absent); the new revision, or null on a lost race. */
  write(key: string, data: string, revision: number | undefined): Promise<number | null>;
}
