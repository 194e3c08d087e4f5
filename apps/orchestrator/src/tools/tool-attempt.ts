import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { mapTransportError, withTraceHeaders } from '@novelrag/bus';
import {
  type ErrorEnvelope,
  Subjects,
  ToolInvocation,
  ToolOutput,
  describeIssues,
  errorEnvelope,
} from '@novelrag/contracts';
import type { Abandonment, ClaimWatch } from './claim-watch';

/**
 * How long past the deadline a reply is still listened for, only to tell "replied after the deadline" from "never
 * replied" in the error (a late reply is not used: the deadline is the tool's contract).
 */
export const LATE_REPLY_GRACE_MS = 1_000;

/** The reason a claim watch is stopped with: an abort without a reason builds a DOMException, stack trace included. */
const SETTLED = 'settled';

/**
 * How one send of an invocation ended. `lost`: the call is known not to run any more (nobody received it, its runner
 * stopped renewing its claim, or no instance of the tool answers pings), so it may be sent again; `gone` says the
 * call may have been running when it was lost (its instance disappeared), which only an idempotent tool survives.
 */
export type AttemptEnd =
  | { readonly kind: 'replied'; readonly output: ToolOutput }
  | { readonly kind: 'cancelled' }
  | { readonly kind: 'lost'; readonly error: ErrorEnvelope; readonly gone: boolean }
  | { readonly kind: 'failed'; readonly error: ErrorEnvelope };

/** What an attempt needs of a ClaimWatch: `lostCall`, and when its first look is due (unknown: started at once). */
export type AttemptClaimWatch = Pick<ClaimWatch, 'lostCall'> & Partial<Pick<ClaimWatch, 'firstLookMs'>>;

export interface AttemptOptions {
  /** Epoch ms: the whole call's deadline (every attempt shares it). */
  readonly deadline: number;
  /** The call's whole budget (for the error message). */
  readonly budgetMs: number;
  readonly now: () => number;
  readonly claimWatch?: AttemptClaimWatch;
  /** Revisions of stale claims already acted upon (the next runner takes them over). */
  readonly staleClaims: Set<number>;
  readonly signal?: AbortSignal;
  /** Default LATE_REPLY_GRACE_MS. */
  readonly lateReplyGraceMs?: number;
}

/**
 * Sends the invocation once and waits for its reply until the whole deadline, unless the call is known lost before:
 * the request finds no responders, or the claim watch sees its runner stop renewing the claim or the tool's services
 * stop answering pings. A healthy call that takes long is never given up early.
 */
export async function sendAttempt(
  nc: NatsConnection,
  invocation: ToolInvocation,
  options: AttemptOptions,
): Promise<AttemptEnd> {
  const { tool } = invocation;
  const subject = invokeSubjectOf(tool);
  let lost: Abandonment | undefined;
  const { claimWatch, signal } = options;
  // Computed before anything is started that only the `finally` below stops (a throwing clock leaks nothing).
  const waitMs =
    Math.max(1, options.deadline - options.now()) + (options.lateReplyGraceMs ?? LATE_REPLY_GRACE_MS);
  // The reply, or a rejection once the call is given up before it: the goal's signal aborted, or the claim watch found
  // the call lost. One promise settled by whichever comes first (no race of two promises) and (with a signal) one
  // listener per attempt: no AbortController or combined signal.
  let giveUp: () => void = () => undefined;
  let replied: (msg: Msg) => void = () => undefined;
  let failedRequest: (err: unknown) => void = () => undefined;
  const reply = new Promise<Msg>((resolve, reject) => {
    replied = resolve;
    failedRequest = reject;
    giveUp = () => reject(new Error('abandoned'));
  });
  const stopWatch = claimWatch
    ? watchClaim(claimWatch, invocation, options.staleClaims, (found) => {
        lost = found;
        giveUp();
      })
    : undefined;
  const stopListening = signal ? onAbort(signal, giveUp) : undefined;
  try {
    // No headers while no span is active (tracing off): `headers` is then undefined, which the client ignores.
    nc.request(subject, JSON.stringify(invocation), {
      timeout: waitMs,
      headers: withTraceHeaders(),
    }).then(replied, failedRequest);
    if (signal?.aborted) giveUp();
    const msg = await reply;
    const late = options.now() - options.deadline;
    if (late > 0) {
      return failed('TIMEOUT', `${tool} replied after the deadline (${late} ms late); its reply is not used`);
    }
    return replyOf(tool, () => msg.json());
  } catch (err) {
    if (signal?.aborted) return { kind: 'cancelled' };
    if (lost) return lostCall(lost, tool, options.staleClaims);
    const mapped = mapTransportError(err, subject, waitMs).envelope;
    if (mapped.code === 'NO_RESPONDERS')
      return { kind: 'lost', error: errorEnvelope('NO_RESPONDERS', `no tool serves ${tool}`), gone: false };
    if (mapped.code === 'TIMEOUT')
      return failed('TIMEOUT', `no reply from ${tool} within its deadline of ${options.budgetMs} ms`);
    return { kind: 'failed', error: mapped };
  } finally {
    stopListening?.();
    stopWatch?.();
  }
}

/** The invoke subject of each tool called so far: building one checks the name (a regular expression, via zod). */
const invokeSubjects = new Map<string, string>();
const MAX_INVOKE_SUBJECTS = 1_000;

function invokeSubjectOf(tool: string): string {
  let subject = invokeSubjects.get(tool);
  if (subject === undefined) {
    subject = Subjects.toolInvoke(tool);
    if (invokeSubjects.size >= MAX_INVOKE_SUBJECTS) invokeSubjects.clear();
    invokeSubjects.set(tool, subject);
  }
  return subject;
}

/** The attempts waiting on a goal signal, behind its one listener (see onAbort). */
interface AbortWaiters {
  readonly fns: Set<() => void>;
  readonly listener: () => void;
}
const abortWaiters = new WeakMap<AbortSignal, AbortWaiters>();

/**
 * Calls `fn` when `signal` aborts, until the returned function is called. One `abort` listener per signal while any
 * attempt waits on it, however many do (the calls of a goal share its signal and run in parallel), removed when the
 * last one stops waiting, so nothing stays on a goal's signal between calls: adding and removing an EventTarget
 * listener per attempt cost more than the rest of an attempt's bookkeeping. Like a listener, `fn` is not called for a
 * signal that aborted already.
 */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  let waiters = abortWaiters.get(signal);
  if (!waiters) {
    const fns = new Set<() => void>();
    const listener = () => {
      abortWaiters.delete(signal);
      for (const waiter of [...fns]) waiter();
    };
    waiters = { fns, listener };
    abortWaiters.set(signal, waiters);
    signal.addEventListener('abort', listener, { once: true });
  }
  const own = () => fn(); // a distinct entry even when one function waits twice
  const { fns, listener } = waiters;
  fns.add(own);
  return () => {
    if (!fns.delete(own) || fns.size > 0 || abortWaiters.get(signal) !== waiters) return;
    abortWaiters.delete(signal);
    signal.removeEventListener('abort', listener);
  };
}

/**
 * Watches the call's claim until the returned function is called (the request settled); `onLost` once it is known
 * lost. The watch's first read comes one pause after the send anyway, so it is started only then (`firstLookMs`): a
 * call answered sooner, as most are, costs one timer and nothing else.
 */
function watchClaim(
  claimWatch: AttemptClaimWatch,
  invocation: ToolInvocation,
  staleClaims: ReadonlySet<number>,
  onLost: (lost: Abandonment) => void,
): () => void {
  let settled: AbortController | undefined;
  const start = (waited: number) => {
    const watching = (settled = new AbortController()).signal;
    // Started through a promise so that no failure of the watch, even a synchronous one, reaches the request.
    Promise.resolve()
      .then(() =>
        claimWatch.lostCall(invocation.invocationId, {
          signal: watching,
          ignore: staleClaims,
          tool: invocation.tool,
          waited,
        }),
      )
      .then((found) => {
        if (found && !watching.aborted) onLost(found);
      })
      .catch(() => undefined);
  };
  const delay = claimWatch.firstLookMs;
  let timer: NodeJS.Timeout | undefined;
  if (delay === undefined) start(0);
  else timer = setTimeout(() => start(delay), delay);
  return () => {
    clearTimeout(timer);
    settled?.abort(SETTLED);
  };
}

function replyOf(tool: string, read: () => unknown): AttemptEnd {
  let body: unknown;
  try {
    body = read();
  } catch {
    return failed('TOOL_FAILED', `${tool} answered with invalid JSON`);
  }
  const parsed = ToolOutput.safeParse(body);
  if (!parsed.success) {
    return failed(
      'TOOL_FAILED',
      `${tool} answered outside the ToolOutput contract: ${describeIssues(parsed.error)}`,
    );
  }
  return { kind: 'replied', output: parsed.data };
}

function failed(code: 'TIMEOUT' | 'TOOL_FAILED', message: string): AttemptEnd {
  return { kind: 'failed', error: errorEnvelope(code, message) };
}

/**
 * A call given up before its deadline. A stale claim is re-sent with the same invocation id (the next runner takes
 * the claim over; this revision is not judged again); a gone tool instance may have been running it; a recorded
 * result whose reply never came is asked for again (the runner replays it).
 */
function lostCall(lost: Abandonment, tool: string, staleClaims: Set<number>): AttemptEnd {
  if (lost.kind === 'unclaimed') {
    // No runner claimed it: it did not run (a late claim of the first send makes the re-send wait for that run).
    const since = new Date(lost.unclaimedSince).toISOString();
    const why = `no runner of ${tool} took the call: the instance it reached is gone`;
    return { kind: 'lost', error: errorEnvelope('UNAVAILABLE', why, { unclaimedSince: since }), gone: false };
  }
  if (lost.kind === 'result-unsent') {
    // Recorded: the call does not run again, the next attempt is answered with the recorded result.
    const since = new Date(lost.recordedSince).toISOString();
    const why = `${tool} recorded its result but no reply came: the instance that held the call is gone`;
    return { kind: 'lost', error: errorEnvelope('UNAVAILABLE', why, { recordedSince: since }), gone: false };
  }
  if (lost.kind === 'tool-gone') {
    return {
      kind: 'lost',
      error: errorEnvelope(
        'NO_RESPONDERS',
        `the tool instance disappeared: no instance of ${tool} answers any more`,
        {
          goneSince: new Date(lost.goneSince).toISOString(),
        },
      ),
      gone: true,
    };
  }
  staleClaims.add(lost.revision);
  return {
    kind: 'lost',
    error: errorEnvelope(
      'UNAVAILABLE',
      `the tool instance disappeared: runner ${lost.runner} stopped renewing its claim`,
      {
        runner: lost.runner,
        leaseUntil: lost.leaseUntil,
      },
    ),
    gone: false,
  };
}
