import {
  SCHEMA_VERSION,
  type ToolInvocation,
  type ToolOutput,
  type ToolResultRecord,
  errorEnvelope,
} from '@novelrag/contracts';
import type { ToolHints } from '@novelrag/agenturn';
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
 * Whether a tool's calls go through `IdempotentExecution`, by its declared hints: a read-only tool changes nothing, and
 * a non-destructive idempotent one may run twice with the same effect, so neither needs the claim and the recorded
 * result (a retry simply runs it again); every other tool (destructive, or not declared idempotent) does. Undeclared
 * hints count as "not read-only, not idempotent".
 */
export function needsAtMostOnce(hints: Partial<ToolHints> | undefined): boolean {
  if (hints?.readOnly) return false;
  return hints?.destructive === true || hints?.idempotent !== true;
}

/**
 * At-most-once execution per `invocationId` across runners:
 * - a recorded result is returned with `replayed: true`, never re-run;
 * - a fresh invocation is claimed with KV `create` (exactly one runner wins), the claim is renewed while the tool
 *   runs and replaced by the result at the end (compare-and-swap on the claim's revision). So a fresh invocation
 *   costs two JetStream round trips, the fewest the guarantee allows: the claim must be stored before the tool runs
 *   (or two runners could both run it) and the result after (or a retry could not replay it). The key is read only
 *   when the `create` finds it taken (a retry, a claim of another runner, a leftover value);
 * - an invocation claimed by another live runner is waited for (bounded by the deadline) and its result returned;
 * - a retryable failure is not recorded (the claim is released), so a retry runs the tool again;
 * - a claim whose lease expired (its runner died) is taken over with a compare-and-swap on its revision, and the tool
 *   runs again. Tools make that second run safe by keying their writes on the invocation id (resources.apply
 *   `idempotencyKey`), so writes that the dead runner already applied are not applied twice;
 * - a runner that was only stalled past its lease (GC pause, blocked event loop, clock skew) and finds its claim taken
 *   over (a renewal or the final recording fails its compare-and-swap) stops its tool (the signal given to `run`
 *   aborts), records nothing and answers a retryable UNAVAILABLE: the new owner runs, records and answers, and the
 *   caller's retry with the same invocation id waits for that result. So one invocation never has two recorded results;
 * - a value that is neither a result nor a claim (another version wrote it) is replaced the same way;
 * - only outputs within the `ToolOutput` contract are recorded, so a retry can always read the record back.
 */
export class IdempotentExecution {
  private readonly now: () => number;

  constructor(private readonly options: IdempotencyOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * `run` runs the tool; its signal aborts when another runner took the invocation over, and the tool must then stop
   * (its output is dropped: `execute` answers without waiting for it).
   */
  async execute(
    invocation: ToolInvocation,
    deadline: number,
    run: (takenOver: AbortSignal) => Promise<ToolOutput>,
  ): Promise<ToolOutput> {
    const { store, logger } = this.options;
    const pollMs = this.options.pollMs ?? 250;
    const id = invocation.invocationId;
    // Every pass but the first waits and checks the deadline, so no state of the key (a live claim, a lost race, a
    // value that cannot be replaced) makes the loop spin or outlive the call.
    let pause = 0;
    let waitingFor = `invocation ${id} could not be claimed before its deadline`;
    // The common case first: a fresh invocation is claimed without reading the key.
    const fresh = this.claimFor(invocation);
    const first = await store.claim(fresh);
    if (first !== null) return this.runClaimed(invocation, fresh, first, run);
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
    run: (takenOver: AbortSignal) => Promise<ToolOutput>,
  ): Promise<ToolOutput> {
    const { store, leaseMs, logger } = this.options;
    const id = invocation.invocationId;
    let revision = firstRevision;
    const lost = new AbortController();
    const takenOver = new Promise<undefined>((resolve) =>
      lost.signal.addEventListener('abort', () => resolve(undefined), { once: true }),
    );
    // Retryable: the caller's retry (same invocation id) reaches the new owner's claim or result, never a third run.
    const takenOverError = errorEnvelope(
      'UNAVAILABLE',
      `runner ${this.options.runner} lost invocation ${id} to another runner (its lease ran out); retry to get that runner's result`,
    );
    const loseClaim = (when: string) => {
      logger.warn(`another runner took over the invocation ${when}; dropping this run`, { invocationId: id });
      lost.abort(takenOverError);
    };
    let renewing: Promise<void> = Promise.resolve();
    const renew = setInterval(
      () => {
        renewing = renewing.then(async () => {
          if (lost.signal.aborted) return;
          let next: number | null;
          try {
            next = await store.swap({ ...claim, leaseUntil: this.now() + leaseMs }, revision);
          } catch (err) {
            // The KV did not answer: the claim may still be ours, so the tool goes on and the next tick tries again
            // (if the outage outlasts the lease and another runner takes over, that renewal finds it out).
            logger.warn('claim not renewed', { invocationId: id, error: String(err) });
            return;
          }
          // A failed compare-and-swap means the entry changed hands: another runner owns the invocation now and runs
          // it, so this run must stop, or the tool would run twice at once and both would answer.
          if (next === null) loseClaim('while it ran');
          else revision = next;
        });
      },
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    let output: ToolOutput | undefined;
    try {
      // The answer does not wait for a tool that ignores its signal once the claim is lost (as for deadlines).
      output = await Promise.race([run(lost.signal), takenOver]);
    } finally {
      clearInterval(renew);
      await renewing; // bounded by the KV client's request timeout; leaves `revision` at the last renewal
    }
    if (output === undefined || lost.signal.aborted) return errorOutput(takenOverError);
    if (output.type === 'error' && output.error.retryable) {
      // A retryable failure (outage, busy dependency) is not final: free the invocation so a retry runs it again.
      await store.release(id, revision);
      return output;
    }
    // Only an output a retry can read back is recorded and answered (an unreadable record would fail every retry).
    output = contractOutput(output);
    const record: ToolResultRecord = {
      schemaVersion: SCHEMA_VERSION,
      invocationId: id,
      goalId: invocation.goalId,
      tool: invocation.tool,
      output,
      recordedAt: new Date(this.now()).toISOString(),
    };
    // Recorded over this runner's own claim only (compare-and-swap): the tool may have ended after another runner took
    // over but before a renewal noticed, and that runner's result is the one to record and answer.
    const recorded = await store.recordOverClaim(record, revision).catch((err: unknown) => {
      logger.error('tool result not recorded', { invocationId: id, error: String(err) });
      return true; // the KV failed, not the claim: answer what the tool did, as before
    });
    if (!recorded) {
      loseClaim('before its result was recorded');
      return errorOutput(takenOverError);
    }
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
