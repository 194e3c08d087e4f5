// In-memory twins of @novelrag/bus's storage ports. For tests and clearly labelled offline demos only.
export { RevisionedMap, type Revisioned } from './revisioned-map';
export { InMemoryGoalStore } from './memory-goal-store';
