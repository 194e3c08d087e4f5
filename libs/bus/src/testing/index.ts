// In-memory twins of @novelrag/bus's storage ports. For tests and clearly labelled offline demos only.
export { RevisionedMap, type Revisioned } from './revisioned-map';
export { memoryCells } from './memory-cells';
export { InMemoryGoalStore } from './memory-goal-store';
export { InMemoryThreadStore } from './memory-thread-store';
export { InMemoryThreadLeases } from './memory-thread-leases';
