import type { ResourceRepository, ResourceStore } from '@novelrag/repository';

/** One store under test, over its own fresh, empty data. */
export interface StoreHarness {
  readonly store: ResourceStore;
  /**
   * A new store over the same persisted data (a process restart). The suite closes the previous store first;
   * the returned store becomes the one `cleanup` must release.
   */
  reopen(): Promise<ResourceStore>;
  /**
   * The same data opened for vectors of `dimensions` (the embedding model changed to another size): the store
   * resizes, and re-embeds thread memories with `LocalEmbedder(dimensions)` where it keeps vectors of them.
   */
  reopenWithDimensions(dimensions: number): Promise<ResourceStore>;
  /** Closes what is still open and removes the data. */
  cleanup(): Promise<void>;
}

export interface StoreContractFactory {
  create(): Promise<StoreHarness>;
  /** When set, the suite does not run; one test prints this reason as a visible warning instead. */
  readonly skip?: string;
}

/** What every case gets: the current store, restarts, and repositories over it. */
export interface ContractContext {
  /** The store currently open (changes after `restart`). */
  readonly store: ResourceStore;
  /** Closes the current store (or the repository that owns it) and reopens the same data. */
  restart(repo?: ResourceRepository): Promise<ResourceStore>;
  /** `restart`, opening the data for another vector size (see `StoreHarness.reopenWithDimensions`). */
  restartWithDimensions(dimensions: number, repo?: ResourceRepository): Promise<ResourceStore>;
  /** A repository over the current store with the contract embedder. */
  openRepo(): Promise<ResourceRepository>;
  /** `restart(repo)` then `openRepo()`. */
  reopenRepo(repo: ResourceRepository): Promise<ResourceRepository>;
}
