import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STORE_CONTRACT_DIMENSIONS } from './contract/fixtures';
import { describeStoreContract } from './contract/store-contract';
import { LanceDbResourceStore } from './lancedb-store';

// Real LanceDB on local disk, one temporary folder per test. optimizeEvery is small so that the suite also
// exercises index optimisation between writes, not only the unindexed-rows path.
describeStoreContract('LanceDB', {
  async create() {
    const dir = await mkdtemp(join(tmpdir(), 'novelrag-lance-'));
    const open = () =>
      LanceDbResourceStore.open({ dir, dimensions: STORE_CONTRACT_DIMENSIONS, optimizeEvery: 3 });
    let current: LanceDbResourceStore;
    try {
      current = await open();
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
    return {
      store: current,
      async reopen() {
        current = await open();
        return current;
      },
      async cleanup() {
        await current.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
});
