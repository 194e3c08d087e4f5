import { InMemoryMemory } from '@novelrag/agenturn/testing';
import { describeMemoryPortContract } from './testing';

// The in-process twin passes the same MemoryPort contract as NatsMemory over a real resource-service.
describeMemoryPortContract('InMemoryMemory', {
  create() {
    return Promise.resolve({ memory: new InMemoryMemory(), close: () => Promise.resolve() });
  },
});
