import {
  SCHEMA_VERSION,
  type ToolInvocation,
  type ToolOutput,
  type ToolResultRecord,
  errorEnvelope,
} from '@novelrag/contracts';
import type { HostLogger } from './logger';
import { errorOutput } from './outputs';
import type { ToolClaim, ToolResultStore } from './result-store';

export interface IdempotencyOptions {
  readonly store: ToolResultStore;
  readonly runner: string;
  /** How long a claim stays valid without renewal; a dead runner's claim is taken over after it. */
  readonly leaseMs: number;
  /** How often a runner waiting on another runner's claim looks again. */
  readonly pollMs?: number;
  readonly logger: HostLogger;
  readonly now?: () => number;
}

/**
 * At-most-once execution per `invocationId` across runners:
 * - a recorded result is returned with `replayed: true`, never re-run;
 * - a fresh invocation is claimed with KV `create` (exactly one runner wins), the claim is renewed while the tool
 *   runs and replaced by the result at the end;
 * - an invocation claimed by another live runner is waited for (bounded by the deadline) and its result returned;
 * - a retryable failure is not recorded (the claim is released), so a retry runs the tool again;
 * - a claim whose lease expired (its runner died) is taken over with a compare-and-swap on its revision, and the tool
 *   runs again. Tools make that second run safe by keying their writes on the invocation id (resources.apply
 *   `idempotencyKey`), so writes that the dead runner already applied are not applied twice.
 */
export class IdempotentExecution {
  private readonly now: () => number;

  constructor(private readonly options: IdempotencyOptions) {
    this.now = options.now ?? Date.now;
  }

  async execute(
    invocation: ToolInvocation,
    deadline: number,
    run: () => Promise<ToolOutput>,
  ): Promise<ToolOutput> {
    const { store } = this.options;
    const pollMs = this.options.pollMs ?? 250;
    for (;;) {
      const state = await store.read(invocation.invocationId);
      if (state.kind === 'done') return { ...state.record.output, replayed: true };
      const claim = this.claimFor(invocation);
      let revision: number | null = null;
      if (state.kind === 'none') {
        revision = await store.claim(claim);
      } else if (state.claim.leaseUntil <= this.now()) {
        this.options.logger.warn('taking over an invocation whose runner stopped renewing it', {
          invocationId: invocation.invocationId,
          previousRunner: state.claim.runner,
        });
        revision = await store.swap(claim, state.revision);
      } else {
        const wait = Math.min(pollMs, state.claim.leaseUntil - this.now(), deadline - this.now());
        if (wait <= 0 && deadline <= this.now()) {
          return errorOutput(
            errorEnvelope(
              'TIMEOUT',
              `invocation ${invocation.invocationId} is still running on another runner`,
            ),
          );
        }
        await delay(Math.max(10, wait));
        continue;
      }
      if (revision === null) continue; // another runner moved first: look again
      return this.runClaimed(invocation, claim, revision, run);
    }
  }

  private async runClaimed(
    invocation: ToolInvocation,
    claim: ToolClaim,
    firstRevision: number,
    run: () => Promise<ToolOutput>,
  ): Promise<ToolOutput> {
    const { store, leaseMs, logger } = this.options;
    let revision = firstRevision;
    let renewing: Promise<void> = Promise.resolve();
    const renew = setInterval(
      () => {
        renewing = renewing.then(async () => {
          const next = await store
            .swap({ ...claim, leaseUntil: this.now() + leaseMs }, revision)
            .catch(() => null);
          if (next === null)
            logger.warn('lost the claim of a running invocation', { invocationId: claim.invocationId });
          else revision = next;
        });
      },
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    let output: ToolOutput;
    try {
      output = await run();
    } finally {
      clearInterval(renew);
      await renewing;
    }
    if (output.type === 'error' && output.error.retryable) {
      // A retryable failure (outage, busy dependency) is not final: free the invocation so a retry runs it again.
      await store.release(invocation.invocationId, revision);
      return output;
    }
    const record: ToolResultRecord = {
      schemaVersion: SCHEMA_VERSION,
      invocationId: invocation.invocationId,
      goalId: invocation.goalId,
      tool: invocation.tool,
      output,
      recordedAt: new Date(this.now()).toISOString(),
    };
    await store.record(record).catch((err: unknown) =>
      logger.error('tool result not recorded', {
        invocationId: invocation.invocationId,
        error: String(err),
      }),
    );
    return output;
  }

  private claimFor(invocation: ToolInvocation): ToolClaim {
    return {
      schemaVersion: SCHEMA_VERSION,
      state: 'running',
      invocationId: invocation.invocationId,
      goalId: invocation.goalId,
      tool: invocation.tool,
      runner: this.options.runner,
      leaseUntil: this.now() + this.options.leaseMs,
      attempt: invocation.attempt ?? 1,
    };
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
