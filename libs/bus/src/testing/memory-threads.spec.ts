import type { CasCells } from '../stores/cas-cells';
import { CasThreadLeases } from '../stores/cas-thread-leases';
import {
  CONTRACT_LEASE_OPTIONS,
  describeThreadLeasesContract,
} from '../stores/contract/thread-leases-contract';
import { describeThreadStoreContract } from '../stores/contract/thread-store-contract';
import { memoryCells } from './memory-cells';
import { InMemoryThreadLeases } from './memory-thread-leases';
import { InMemoryThreadStore } from './memory-thread-store';
import { RevisionedMap } from './revisioned-map';

describeThreadStoreContract('in memory', {
  create: async () => {
    const store = new InMemoryThreadStore();
    return {
      store,
      putRaw: async (threadId, raw) => void store.records.put(threadId, raw),
      cleanup: async () => undefined,
    };
  },
});

/** Cells that fail every call once `crashed` is set (an instance whose connection is gone). */
function crashableCells(cells: CasCells): { cells: CasCells; crash(): void } {
  let crashed = false;
  const alive = () => {
    if (crashed) throw new Error('this instance crashed');
  };
  return {
    cells: {
      read: async (key) => (alive(), cells.read(key)),
      write: async (key, data, revision) => (alive(), cells.write(key, data, revision)),
    },
    crash: () => void (crashed = true),
  };
}

describeThreadLeasesContract('in memory', {
  create: async () => {
    const records = new RevisionedMap();
    return {
      leases: new InMemoryThreadLeases(CONTRACT_LEASE_OPTIONS, records),
      open: async (options) => new InMemoryThreadLeases(options, records),
      openCrashable: async (options) => {
        const { cells, crash } = crashableCells(memoryCells(records));
        return { leases: new CasThreadLeases(cells, (id) => id, options), crash: async () => crash() };
      },
      cleanup: async () => undefined,
    };
  },
});
