/// <reference types="jest" />
// The shared ResourceStore contract (STYLE practice 8): every store (in-memory reference, LanceDB, Qdrant) runs
// this one suite. It is a test helper, not runtime code: only *.spec.ts files import it.
import { ResourceRepository, type ResourceStore } from '@novelrag/repository';
import type { ContractContext, StoreContractFactory, StoreHarness } from './context';
import { registerAnalysisCases } from './analysis-cases';
import { registerDirectCases } from './direct-cases';
import { contractEmbedder } from './fixtures';
import { registerHistoryCases } from './history-cases';
import { registerMemoryCases } from './memory-cases';
import { registerRepositoryCases } from './repository-cases';
import { registerResizeCases } from './resize-cases';
import { registerSearchCases } from './search-cases';

export type { ContractContext, StoreContractFactory, StoreHarness } from './context';

class Context implements ContractContext {
  private current: ResourceStore;

  constructor(private readonly harness: StoreHarness) {
    this.current = harness.store;
  }

  get store(): ResourceStore {
    return this.current;
  }

  async restart(repo?: ResourceRepository): Promise<ResourceStore> {
    if (repo) await repo.close();
    else await this.current.close();
    this.current = await this.harness.reopen();
    return this.current;
  }

  async restartWithDimensions(dimensions: number, repo?: ResourceRepository): Promise<ResourceStore> {
    if (repo) await repo.close();
    else await this.current.close();
    this.current = await this.harness.reopenWithDimensions(dimensions);
    return this.current;
  }

  openRepo(): Promise<ResourceRepository> {
    return ResourceRepository.open(this.current, contractEmbedder());
  }

  async reopenRepo(repo: ResourceRepository): Promise<ResourceRepository> {
    await this.restart(repo);
    return this.openRepo();
  }

  async dispose(): Promise<void> {
    await this.current.close();
    await this.harness.cleanup();
  }
}

/**
 * Registers the contract as a Jest `describe` block named `ResourceStore contract: <name>`. Stores must be
 * created with `STORE_CONTRACT_DIMENSIONS`. With `factory.skip`, a single test warns
 * `<name> contract suite NOT RUN: <reason>` and passes, so a skipped suite is never silent.
 */
export function describeStoreContract(name: string, factory: StoreContractFactory): void {
  describe(`ResourceStore contract: ${name}`, () => {
    if (factory.skip !== undefined) {
      const reason = factory.skip;
      it(`is NOT RUN: ${reason}`, () => {
        console.warn(`${name} contract suite NOT RUN: ${reason}`);
        expect(reason.length).toBeGreaterThan(0);
      });
      return;
    }
    let context: Context | undefined;
    const ctx = (): ContractContext => {
      if (!context) throw new Error('the store harness was not created');
      return context;
    };
    beforeEach(async () => {
      context = new Context(await factory.create());
    });
    afterEach(async () => {
      const done = context;
      context = undefined;
      await done?.dispose();
    });
    describe('store operations', () => registerDirectCases(ctx));
    describe('through ResourceRepository', () => registerRepositoryCases(ctx));
    describe('idempotency keys and interrupted writes', () => registerHistoryCases(ctx));
    describe('search and segments', () => registerSearchCases(ctx));
    describe('text analysis and what is indexed', () => registerAnalysisCases(ctx));
    describe('thread memory', () => registerMemoryCases(ctx));
    describe('embedding model of another vector size', () => registerResizeCases(ctx));
  });
}
