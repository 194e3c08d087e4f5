import {
  SCHEMA_VERSION,
  type ToolInvocation,
  type ToolOutput,
  type ToolResultRecord,
  errorEnvelope,
} from '@novelrag/contracts';
import type { HostLogger } from './logger';
import { contractOutput, errorOutput } from './outputs';
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
 *   `idempotencyKey`), so writes that the dead runner already applied are not applied twice;
 * - a value that is neither a result nor a claim (another version wrote it) is replaced the same way;
 * - only outputs within the `ToolOutput` contract are recorded, so a retry can always read the record back.
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
    const { store, logger } = this.options;
    const pollMs = this.options.pollMs ?? 250;
    const id = invocation.invocationId;
    // Every pass but the first waits and checks the deadline, so no state of the key (a live claim, a lost race, a
    // value that cannot be replaced) makes the loop spin or outlive the call.
    let pause = 0;
    let waitingFor = `invocation ${id} could not be claimed before its deadline`;
    for (;;) {
      if (pause > 0) {
        const left = deadline - this.now();
        if (left <= 0) return errorOutput(errorEnvelope('TIMEOUT', waitingFor));
        await delay(Math.min(pause, left));
      }
      const state = await store.read(id);
      if (state.kind === 'done') return { ...state.record.output, replayed: true };
      const claim = this.claimFor(invocation);
      let revision: number | null;
      if (state.kind === 'none') {
        revision = await store.claim(claim);
      } else if (state.kind === 'unreadable') {
        // Neither a result nor a claim of this version: the key is taken, so `create` would fail forever. Replace it
        // like an expired claim (compare-and-swap on its revision): the invocation runs as if it were fresh.
        logger.warn('replacing an unreadable value of an invocation', { invocationId: id });
        revision = await store.swap(claim, state.revision);
      } else if (state.claim.leaseUntil <= this.now()) {
        logger.warn('taking over an invocation whose runner stopped renewing it', {
          invocationId: id,
          previousRunner: state.claim.runner,
        });
        revision = await store.swap(claim, state.revision);
      } else {
        waitingFor = `invocation ${id} is still running on another runner`;
        pause = Math.max(MIN_PAUSE_MS, Math.min(pollMs, state.claim.leaseUntil - this.now()));
        continue;
      }
      if (revision !== null) return this.runClaimed(invocation, claim, revision, run);
      pause = MIN_PAUSE_MS; // another runner moved first: look again shortly
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
    // Only an output a retry can read back is recorded and answered (an unreadable record would fail every retry).
    output = contractOutput(output);
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

/** Shortest wait between two looks at the key. */
const MIN_PAUSE_MS = 10;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
