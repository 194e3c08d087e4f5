// Thread memory: the store port's memory part, its reference implementation and the domain over it.
export { MEMORY_ROW_KINDS, memoryRowKind, SEARCHED_MEMORY_KINDS } from './memory-store.port';
export type {
  MemoryFilter,
  MemoryHit,
  MemoryRow,
  MemoryRowKind,
  MemorySearchRequest,
  MemoryStore,
  MemoryUpsert,
} from './memory-store.port';
export { fuseMemoryHits, memoryTerms } from './memory-search';
export type { MemorySides } from './memory-search';
export { byCreation, InMemoryMemoryStore } from './in-memory-memory-store';
export { DEFAULT_MEMORY_RESULTS, exchangeText, memoryId, ThreadMemory } from './thread-memory';
export type { ThreadInteraction, ThreadMemoryItem } from './thread-memory';
