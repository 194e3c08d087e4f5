import { SCHEMA_VERSION, Subjects, ToolInvocation } from '@novelrag/contracts';
import { IdempotentExecution, needsAtMostOnce } from './idempotent-execution';
import { silentLogger } from './logger';
import type { ToolResultStore } from './result-store';
import { InMemoryToolResultStore } from './testing';

describe('needsAtMostOnce', () => {
  it('keeps the claim and the record for tools that change things and are not declared idempotent', () => {
    expect(needsAtMostOnce(undefined)).toBe(true);
    expect(needsAtMostOnce({})).toBe(true);
    expect(needsAtMostOnce({ readOnly: false, destructive: true, idempotent: false })).toBe(true);
    expect(needsAtMostOnce({ readOnly: false, destructive: false, idempotent: false })).toBe(true);
    expect(needsAtMostOnce({ destructive: true, idempotent: true })).toBe(true);
  });

  it('skips them for read-only tools and for non-destructive idempotent ones', () => {
    expect(needsAtMostOnce({ readOnly: true })).toBe(false);
    expect(needsAtMostOnce({ readOnly: true, destructive: false, idempotent: true })).toBe(false);
    expect(needsAtMostOnce({ readOnly: false, destructive: false, idempotent: true })).toBe(false);
  });
});

describe('IdempotentExecution round trips', () => {
  /** The in-memory store, recording which store calls (one KV round trip each over NATS) were made. */
  function counting(): { store: ToolResultStore; calls: string[] } {
    const inner = new InMemoryToolResultStore();
    const calls: string[] = [];
    const store: ToolResultStore = {
      read: (id) => (calls.push('read'), inner.read(id)),
      claim: (claim) => (calls.push('claim'), inner.claim(claim)),
      swap: (claim, revision) => (calls.push('swap'), inner.swap(claim, revision)),
      record: (record) => (calls.push('record'), inner.record(record)),
      recordOverClaim: (record, revision) => (
        calls.push('recordOverClaim'),
        inner.recordOverClaim(record, revision)
      ),
      release: (id, revision) => (calls.push('release'), inner.release(id, revision)),
    };
    return { store, calls };
  }
  const invocation = ToolInvocation.parse({
    schemaVersion: SCHEMA_VERSION,
    invocationId: 'inv-round-trips',
    goalId: 'goal-r',
    step: 0,
    tool: 'probe',
    params: {},
    deadline: Date.now() + 60_000,
    runtimeSubject: Subjects.goalRuntime('goal-r'),
    interactSubject: Subjects.goalInteract('goal-r'),
  });

  it('claims and records a fresh invocation in two store calls, and replays a repeat after one more read', async () => {
    const { store, calls } = counting();
    const execution = new IdempotentExecution({ store, runner: 'r', leaseMs: 60_000, logger: silentLogger });
    const run = () => Promise.resolve({ type: 'result' as const, result: 'ok' });
    await expect(execution.execute(invocation, invocation.deadline, run)).resolves.toMatchObject({
      result: 'ok',
    });
    expect(calls).toEqual(['claim', 'recordOverClaim']);
    calls.length = 0;
    await expect(execution.execute(invocation, invocation.deadline, run)).resolves.toMatchObject({
      result: 'ok',
      replayed: true,
    });
    expect(calls).toEqual(['claim', 'read']);
  });
});
