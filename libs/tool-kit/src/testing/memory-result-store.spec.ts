import { ManualClock } from '@novelrag/agenturn/testing';
import { describeResultStoreContract } from '../contract/result-store-contract';
import { InMemoryToolResultStore } from './memory-result-store';

describeResultStoreContract('in memory', {
  create: async () => {
    const clock = new ManualClock();
    const now = () => clock.now();
    const store = new InMemoryToolResultStore({ now });
    const ttlMs = 60_000;
    return {
      store,
      shortLived: { store: new InMemoryToolResultStore({ ttlMs, now }), ttlMs },
      putRaw: async (invocationId, raw) => store.putRaw(invocationId, raw),
      elapse: async (ms) => clock.advance(ms),
      cleanup: async () => undefined,
    };
  },
});
