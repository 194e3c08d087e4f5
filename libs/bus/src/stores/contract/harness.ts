/// <reference types="jest" />
// Shared by the store contract suites of this lib: the factory shape, the per-test harness life cycle and helpers.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BusError } from '../../errors';

/** One implementation under test over fresh, empty data; `cleanup` releases what `create` opened. */
export interface ContractFactory<H extends { cleanup(): Promise<void> }> {
  create(): Promise<H>;
}

/** A fresh harness per test (beforeEach/afterEach); the getter throws when called outside a test. */
export function perTest<H extends { cleanup(): Promise<void> }>(factory: ContractFactory<H>): () => H {
  let current: H | undefined;
  beforeEach(async () => {
    current = await factory.create();
  });
  afterEach(async () => {
    const done = current;
    current = undefined;
    await done?.cleanup();
  });
  return () => {
    if (!current) throw new Error('the store harness was not created');
    return current;
  };
}

/** The BusError a promise rejects with (anything else fails the test). */
export async function busFailure(p: Promise<unknown>): Promise<BusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof BusError) return e;
    throw e;
  }
  throw new Error('expected a failure');
}

/** A valid contract fixture (libs/contracts/fixtures/valid/<kind>/<name>.json). */
export function validFixture(kind: string, name: string): unknown {
  const file = path.join(__dirname, '../../../../contracts/fixtures/valid', kind, `${name}.json`);
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** `value`, failing the test when it is null or undefined. */
export function present<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error('expected a value');
  return value;
}
