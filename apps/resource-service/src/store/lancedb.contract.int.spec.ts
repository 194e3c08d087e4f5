import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalEmbedder } from '@novelrag/repository';
import { STORE_CONTRACT_DIMENSIONS } from './contract/fixtures';
import { describeStoreContract } from './contract/store-contract';
import { LanceDbResourceStore } from './lancedb-store';

// Real LanceDB on local disk, one temporary folder per test. optimizeEvery is small so that the suite also
// exercises index optimisation between writes, not only the unindexed-rows path.
describeStoreContract('LanceDB', {
  async create() {
    const dir = await mkdtemp(join(tmpdir(), 'novelrag-lance-'));
    const open = (dimensions = STORE_CONTRACT_DIMENSIONS) =>
      LanceDbResourceStore.open({
        dir,
        dimensions,
        optimizeEvery: 3,
        embed: (texts) => new LocalEmbedder(dimensions).embed(texts),
      });
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
      async reopenWithDimensions(dimensions: number) {
        current = await open(dimensions);
        return current;
      },
      async cleanup() {
        await current.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
});
