import { type NatsConnection, NoRespondersError, RequestError, TimeoutError } from '@nats-io/transport-node';
import { CancelledError } from '@novelrag/agenturn';

/** How a runner keeps a question alive while it waits for the human. */
export interface AskTiming {
  /** The question is re-sent this often while no reply came (each repeat also checks that someone listens). */
  readonly renewMs?: number;
  /** Pause before asking again when nobody listens. */
  readonly retryMs?: number;
  /** Longest time in a row nobody listens before the call is given back (the goal's orchestrator is gone). */
  readonly orphanWaitMs?: number;
}

/**
 * The re-send doubles as the runner's heartbeat check of the orchestrator: every 2 s, so a runner blocked on a question
 * of an orchestrator that died notices within about 2 s. It then asks again every 0.5 s: the instance that takes the goal
 * over (about 3 s after the crash by default) is reached as soon as it listens; when none has for 3 s (the default
 * thread lease, `NOVELRAG_TOOL_ORPHAN_WAIT_MS` in the tool-runner), the call is given back, at most about 5 s after the
 * crash.
 */
export const DEFAULT_ASK_TIMING: Required<AskTiming> = {
  renewMs: 2_000,
  retryMs: 500,
  orphanWaitMs: 3_000,
};

export type AskOutcome =
  { readonly kind: 'reply'; readonly raw: unknown } | { readonly kind: 'orphaned'; readonly reason: string };

export interface AskOptions extends AskTiming {
  readonly signal: AbortSignal;
  /** Epoch ms after which no reply is waited for. */
  readonly until: number;
  readonly now: () => number;
}

/**
 * Sends one question and waits for its reply, re-sending it every `renewMs` while none came. The orchestrator takes a
 * repeat of the same invocation's question as that same question (one record, shown to the human once), so a repeat
 * is only a check that somebody still listens. Nobody listening (NATS "no responders": the orchestrator of the goal
 * died, or hands the goal over) is NOT an answer: the question is sent again every `retryMs` until an orchestrator
 * listens (the one that resumed the goal, which then finds the recorded question and any answer given meanwhile),
 * for at most `orphanWaitMs` in a row. After that, or when `until` passes without a reply, the outcome is `orphaned`
 * and the caller gives the call back as retryable. Cancellation (`signal`) rejects with CancelledError.
 */
export async function askUntilAnswered(
  nc: NatsConnection,
  subject: string,
  body: string,
  options: AskOptions,
): Promise<AskOutcome> {
  const timing = { ...DEFAULT_ASK_TIMING, ...definedOnly(options) };
  const { signal, until, now } = options;
  let orphanSince: number | undefined;
  for (;;) {
    if (signal.aborted) throw new CancelledError('the invocation was cancelled');
    const left = until - now();
    if (left <= 0) return { kind: 'orphaned', reason: 'no reply before the call ran out of time' };
    try {
      const msg = await abortable(
        nc.request(subject, body, { timeout: Math.min(timing.renewMs, left) }),
        signal,
      );
      return { kind: 'reply', raw: readJson(msg) };
    } catch (err) {
      if (err instanceof CancelledError) throw err;
      if (isTimeout(err)) {
        orphanSince = undefined; // somebody holds the question: ask again, which also checks they are still there
        continue;
      }
      // No responders, or the connection is reconnecting: nobody hears the question right now.
      orphanSince ??= now();
      if (now() - orphanSince >= timing.orphanWaitMs) {
        return { kind: 'orphaned', reason: 'no orchestrator listens to the goal' };
      }
      await pause(Math.min(timing.retryMs, Math.max(0, left)), signal);
    }
  }
}

function definedOnly(timing: AskTiming): AskTiming {
  return Object.fromEntries(
    (['renewMs', 'retryMs', 'orphanWaitMs'] as const)
      .filter((key) => timing[key] !== undefined)
      .map((key) => [key, timing[key]]),
  );
}

function readJson(msg: { json(): unknown }): unknown {
  try {
    return msg.json();
  } catch {
    return undefined; // outside the contract: the caller treats it so
  }
}

function isTimeout(err: unknown): boolean {
  if (err instanceof NoRespondersError) return false;
  if (err instanceof TimeoutError) return true;
  const cause = err instanceof RequestError ? (err as { cause?: unknown }).cause : undefined;
  if (cause instanceof NoRespondersError) return false;
  if (cause instanceof TimeoutError) return true;
  return (
    /timeout/i.test(String((err as Error | undefined)?.name ?? '')) && !/no responders/i.test(String(err))
  );
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** `p`, or a CancelledError as soon as `signal` aborts. */
export function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new CancelledError('the invocation was cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
