import { memoryCells } from '../testing/memory-cells';
import type { CasCells } from './cas-cells';
import { CasThreadLeases } from './cas-thread-leases';

/** Memory cells that count the reads. */
function countingCells(): { cells: CasCells; reads: () => number } {
  const inner = memoryCells();
  let reads = 0;
  return {
    cells: {
      read: (key) => {
        reads += 1;
        return inner.read(key);
      },
      write: (key, data, revision) => inner.write(key, data, revision),
    },
    reads: () => reads,
  };
}

const LEASE_MS = 1_000; // renewals every 200 ms
const request = { threadId: 't', goalId: 'g', seq: 1, maxWaitMs: 5_000 };

describe('CasThreadLeases, the holder side', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('renews and releases with one compare-and-swap each (no read) while nobody else writes the record', async () => {
    const { cells, reads } = countingCells();
    const held = await new CasThreadLeases(cells, (id) => id, { leaseMs: LEASE_MS }).acquire(request);
    const readsAtPickup = reads();
    await jest.advanceTimersByTimeAsync(3 * 200);
    const { value } = await cells.read('t');
    expect(value).toMatchObject({ holder: { goalId: 'g', beat: 4 } }); // acquired at 1, renewed three times
    await held?.release();
    expect(reads()).toBe(readsAtPickup + 1); // the read just above, none by the holder
    expect((await cells.read('t')).value).toMatchObject({ holder: null });
  });

  it('reads the record again once somebody else wrote it: keeps renewing, and sees a takeover as lost', async () => {
    const { cells } = countingCells();
    const held = await new CasThreadLeases(cells, (id) => id, { leaseMs: LEASE_MS }).acquire(request);
    const write = async (change: (record: Record<string, unknown>) => object) => {
      const { value, revision } = await cells.read('t');
      await cells.write('t', JSON.stringify(change(value as Record<string, unknown>)), revision);
    };
    // A waiter joins: the holder's next compare-and-swap fails, it reads and renews on the new record.
    const waiter = { goalId: 'w', owner: 'w:1', seq: 2, beat: 1 };
    await write((record) => ({ ...record, waiting: [waiter] }));
    await jest.advanceTimersByTimeAsync(200);
    expect((await cells.read('t')).value).toMatchObject({
      holder: { goalId: 'g', beat: 2 },
      waiting: [waiter],
    });
    expect(held?.lost.aborted).toBe(false);
    // Another delivery takes the thread over: the next renewal finds it gone.
    await write(() => ({ holder: { ...waiter, goalId: 'g', owner: 'g:other' }, waiting: [] }));
    await jest.advanceTimersByTimeAsync(200);
    expect(held?.lost.aborted).toBe(true);
    await held?.release(); // leaves the new holder alone
    expect((await cells.read('t')).value).toMatchObject({ holder: { owner: 'g:other' } });
  });
});

describe('CasThreadLeases, a renewal contended by waiters', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('keeps its three reads and writes: a swap on the record it last wrote that fails does not use one up', async () => {
    const inner = memoryCells();
    const waiter = { goalId: 'w', owner: 'w:1', seq: 2, beat: 1 };
    /** A waiter refreshing its place (as waiters on other instances do every fifth of the lease). */
    const waiterWrites = async () => {
      const { value, revision } = await inner.read('t');
      const record = value as { holder: unknown; waiting: (typeof waiter)[] };
      waiter.beat += 1;
      await inner.write('t', JSON.stringify({ ...record, waiting: [waiter] }), revision);
    };
    let interleave = 0; // holder reads followed by a waiter's write before the holder writes
    const cells: CasCells = {
      read: async (key) => {
        const read = await inner.read(key);
        if (interleave > 0) {
          interleave -= 1;
          await waiterWrites();
        }
        return read;
      },
      write: (key, data, revision) => inner.write(key, data, revision),
    };
    const held = await new CasThreadLeases(cells, (id) => id, { leaseMs: LEASE_MS }).acquire(request);
    // The waiter joined after the holder's last write, and its refreshes beat the holder's next two writes.
    await waiterWrites();
    interleave = 2;
    await jest.advanceTimersByTimeAsync(200);
    expect((await inner.read('t')).value).toMatchObject({ holder: { goalId: 'g', beat: 2 } });
    expect(held?.lost.aborted).toBe(false);
    await held?.release();
  });
});
