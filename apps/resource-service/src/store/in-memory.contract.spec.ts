import { InMemoryResourceStore } from '@novelrag/repository';
import { describeStoreContract } from './contract/store-contract';

// The reference store runs the same contract; "reopen" rebuilds a store from the previous instance's exported
// state and vectors, which is exactly what the in-memory store persists.
describeStoreContract('in-memory', {
  async create() {
    let current = new InMemoryResourceStore();
    return {
      store: current,
      async reopen() {
        current = new InMemoryResourceStore({
          state: current.exportState(),
          vectors: current.exportVectors(),
          memories: current.memory.exportMemories(),
        });
        return current;
      },
      async cleanup() {
        await current.close();
      },
    };
  },
});
