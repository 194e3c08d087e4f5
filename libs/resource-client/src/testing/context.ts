import type { ResourceService } from '../resource-service.port';

/** One ResourceService under test and how to release it. */
export interface ResourceServiceHarness {
  readonly service: ResourceService;
  close(): Promise<void>;
}

export interface ResourceServiceContractFactory {
  /** Called once per suite: cases share the service and keep to names of their own (see `unique`). */
  create(): Promise<ResourceServiceHarness>;
}

/** What every case gets. */
export interface ContractContext {
  readonly service: ResourceService;
  /** A name no other case of this run uses (an aspect name, an id). */
  unique(base: string): string;
}

/** Expects `promise` to reject with a coded error of `code` (identity by code, never by class). */
export async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  await expect(promise).rejects.toMatchObject({ code });
}
