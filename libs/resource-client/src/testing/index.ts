/// <reference types="jest" />
// The shared ResourceService contract (test support): every implementation — the repository in process on the
// in-memory store, and the resource-service over NATS — runs this one suite. Only *.spec.ts files import it.
import { registerBacklogCases } from './backlog-cases';
import type { ContractContext, ResourceServiceContractFactory, ResourceServiceHarness } from './context';
import { registerReadCases } from './read-cases';
import { registerWriteCases } from './write-cases';

export type { ContractContext, ResourceServiceContractFactory, ResourceServiceHarness } from './context';
export { expectCode } from './context';

/** Registers the contract as a Jest `describe` block named `ResourceService contract: <name>`. */
export function describeResourceServiceContract(name: string, factory: ResourceServiceContractFactory): void {
  describe(`ResourceService contract: ${name}`, () => {
    let harness: ResourceServiceHarness | undefined;
    let counter = 0;
    const context: ContractContext = {
      get service() {
        if (!harness) throw new Error('the ResourceService harness was not created');
        return harness.service;
      },
      unique: (base) => `${base}_${++counter}`,
    };
    beforeAll(async () => {
      harness = await factory.create();
    });
    afterAll(async () => {
      await harness?.close();
    });
    describe('reads', () => registerReadCases(() => context));
    describe('writes', () => registerWriteCases(() => context));
    describe('backlog', () => registerBacklogCases(() => context));
  });
}

export { describeMemoryPortContract } from './memory-contract';
export type { MemoryContractFactory, MemoryHarness } from './memory-contract';
