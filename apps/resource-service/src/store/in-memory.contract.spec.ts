import { InMemoryResourceStore } from '@novelrag/repository';
import { describeStoreContract } from './contract/store-contract';

// The reference store runs the same contract; "reopen" rebuilds a store from the previous instance's exported
// state and vectors, which is exactly what the in-memory store persists.
describeStoreContract('in-memory', {
  async create() {
    let current = new InMemoryResourceStore();
    const reopen = async () => {
      current = new InMemoryResourceStore({
        state: current.exportState(),
        vectors: current.exportVectors(),
        memories: current.memory.exportMemories(),
      });
      return current;
    };
    return {
      store: current,
      reopen,
      // Nothing to resize: the repository re-embeds every element (the model is part of each search hash).
      reopenWithDimensions: reopen,
      async cleanup() {
        await current.close();
      },
    };
  },
});
