/// <reference types="jest" />
// The ToolResultStore contract: the KV store and the in-memory twin both run it (tests only, not runtime code).
import { randomUUID } from 'node:crypto';
import { SCHEMA_VERSION, type ToolClaim, type ToolResultRecord } from '@novelrag/contracts';
import type { ToolResultStore } from '../result-store';

export interface ResultStoreHarness {
  /** A store whose values outlive every test (so no case depends on how fast it runs). */
  readonly store: ToolResultStore;
  /** Another, empty store whose values expire `ttlMs` after their last write (the expiry case). */
  readonly shortLived: { readonly store: ToolResultStore; readonly ttlMs: number };
  /** Stores `raw` as the value of `invocationId` as it is (a value another version wrote). */
  putRaw(invocationId: string, raw: string): Promise<void>;
  /** Lets `ms` pass for the store's clock (a manual clock, or real time). */
  elapse(ms: number): Promise<void>;
  cleanup(): Promise<void>;
}

export interface ResultStoreContractFactory {
  create(): Promise<ResultStoreHarness>;
}

const claimOf = (invocationId: string, runner = 'runner-a', attempt = 1): ToolClaim => ({
  schemaVersion: SCHEMA_VERSION,
  state: 'running',
  invocationId,
  goalId: 'g-1',
  tool: 'DiceTool',
  runner,
  leaseUntil: 1_000,
  attempt,
});

const resultOf = (invocationId: string, text = 'rolled 4'): ToolResultRecord => ({
  schemaVersion: SCHEMA_VERSION,
  invocationId,
  goalId: 'g-1',
  tool: 'DiceTool',
  output: { type: 'result', result: text },
  recordedAt: '2026-03-01T08:00:00.000Z',
});

/** Bounded poll (for a store whose expiry runs on the server's own timer). */
async function eventually(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Registers `ToolResultStore contract: <name>`; every test gets a fresh, empty store from `factory`. */
export function describeResultStoreContract(name: string, factory: ResultStoreContractFactory): void {
  describe(`ToolResultStore contract: ${name}`, () => {
    let h: ResultStoreHarness;
    beforeEach(async () => {
      h = await factory.create();
    });
    afterEach(() => h.cleanup());
    const id = () => `inv-${randomUUID()}`;

    it('claims a fresh invocation once: a second claim of the same key gets null', async () => {
      const inv = id();
      expect(await h.store.read(inv)).toEqual({ kind: 'none' });
      const revision = await h.store.claim(claimOf(inv));
      expect(revision).toBeGreaterThan(0);
      expect(await h.store.claim(claimOf(inv, 'runner-b'))).toBeNull();
      expect(await h.store.read(inv)).toEqual({ kind: 'claimed', claim: claimOf(inv), revision });
    });

    it('swaps a claim only at its revision (renewal, take-over); a stale swap gets null', async () => {
      const inv = id();
      const first = (await h.store.claim(claimOf(inv))) as number;
      const renewed = await h.store.swap({ ...claimOf(inv), leaseUntil: 2_000 }, first);
      expect(renewed).toBeGreaterThan(first);
      expect(await h.store.swap(claimOf(inv, 'runner-b', 2), first)).toBeNull();
      const state = await h.store.read(inv);
      expect(state).toEqual({
        kind: 'claimed',
        claim: { ...claimOf(inv), leaseUntil: 2_000 },
        revision: renewed,
      });
    });

    it('records a result over its own claim, and refuses once the claim changed hands (fencing)', async () => {
      const inv = id();
      const mine = (await h.store.claim(claimOf(inv))) as number;
      const theirs = (await h.store.swap(claimOf(inv, 'runner-b', 2), mine)) as number;
      expect(await h.store.recordOverClaim(resultOf(inv, 'stale'), mine)).toBe(false);
      expect(await h.store.recordOverClaim(resultOf(inv), theirs)).toBe(true);
      expect(await h.store.read(inv)).toEqual({ kind: 'done', record: resultOf(inv) });
      expect(await h.store.claim(claimOf(inv))).toBeNull();
    });

    it('records a result whatever the key holds', async () => {
      const inv = id();
      await h.store.claim(claimOf(inv));
      await h.store.record(resultOf(inv));
      expect(await h.store.read(inv)).toEqual({ kind: 'done', record: resultOf(inv) });
    });

    it('releases a claim at its revision only, after which the invocation can be claimed again', async () => {
      const inv = id();
      const first = (await h.store.claim(claimOf(inv))) as number;
      const renewed = (await h.store.swap(claimOf(inv), first)) as number;
      await h.store.release(inv, first); // stale: leaves the claim alone, no error
      expect((await h.store.read(inv)).kind).toBe('claimed');
      await h.store.release(inv, renewed);
      expect(await h.store.read(inv)).toEqual({ kind: 'none' });
      expect(await h.store.claim(claimOf(inv, 'runner-b'))).toBeGreaterThan(renewed);
    });

    it('reports a value that is neither a result nor a claim as unreadable, replaceable only by swap', async () => {
      const inv = id();
      await h.putRaw(inv, JSON.stringify({ something: 'else' }));
      const state = await h.store.read(inv);
      expect(state.kind).toBe('unreadable');
      const revision = (state as { revision: number }).revision;
      expect(await h.store.claim(claimOf(inv))).toBeNull();
      expect(await h.store.swap(claimOf(inv), revision)).toBeGreaterThan(revision);
      const broken = id();
      await h.putRaw(broken, 'not json');
      expect((await h.store.read(broken)).kind).toBe('unreadable');
    });

    it('forgets a value once the TTL passed after its last write', async () => {
      const inv = id();
      const { store, ttlMs } = h.shortLived;
      await store.record(resultOf(inv));
      await h.elapse(ttlMs);
      const gone = await eventually(async () => (await store.read(inv)).kind === 'none', 30_000);
      expect(gone).toBe(true);
      expect(await store.claim(claimOf(inv))).toBeGreaterThan(0);
    });
  });
}
