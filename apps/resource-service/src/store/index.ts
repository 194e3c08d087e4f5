// Store adapters of the resource-service (the contract suite under ./contract is test-only and not exported).
export { createStore } from './create-store';
export type { StoreEnv } from './create-store';
export { LanceDbResourceStore } from './lancedb-store';
export type { LanceDbStoreOptions } from './lancedb-store';
export { QdrantResourceStore, DEFAULT_QDRANT_COLLECTION } from './qdrant-store';
export type { QdrantPort, QdrantStoreOptions } from './qdrant-store';
export { sqlString, sqlIn } from './sql';
export { sparseVector, termIndex } from './sparse';
export type { SparseVector } from './sparse';
export { uuidV5, pointIdOf, RESOURCE_URI_NAMESPACE } from './uuid5';
