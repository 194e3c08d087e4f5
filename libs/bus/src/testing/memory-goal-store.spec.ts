import { describeGoalStoreContract } from '../stores/contract/goal-store-contract';
import { InMemoryGoalStore } from './memory-goal-store';

describeGoalStoreContract('in memory', {
  create: async () => {
    const store = new InMemoryGoalStore();
    return {
      store,
      putRaw: async (goalId, raw) => store.putRaw(goalId, raw),
      cleanup: async () => undefined,
    };
  },
});
