// In-memory twins of @novelrag/tool-kit's storage ports. For tests and clearly labelled offline demos only.
export { InMemoryToolResultStore, type InMemoryToolResultStoreOptions } from './memory-result-store';
