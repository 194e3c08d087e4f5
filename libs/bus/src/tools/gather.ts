import { createInbox, Empty, type Msg, type NatsConnection } from '@nats-io/transport-node';

export interface GatherOptions {
  /** Longest the whole gather may take, and so the longest wait for a first answer. Default 5 000 ms. */
  readonly maxWaitMs?: number;
  /**
   * Shortest silence after the last answer that ends the gather. Default 100 ms. It grows to twice the delay of the
   * first answer, so on a loaded machine, whose answers come later and further apart, it waits longer.
   */
  readonly quietMs?: number;
}

export const GATHER_MAX_WAIT_MS = 5_000;
export const GATHER_QUIET_MS = 100;

const isNoResponders = (msg: Msg): boolean => msg.data.length === 0 && msg.headers?.code === 503;

/**
 * Scatter-gather that ends when the answers stop arriving, not after a fixed window: publishes to `subject` with a
 * private reply inbox and collects every answer until none came for the quiet gap (see `GatherOptions.quietMs`) or
 * `maxWaitMs` passed. Resolves `[]` at once when nothing subscribes to `subject` (no responders). Rejects only when
 * the connection cannot subscribe or publish.
 */
export function gather(nc: NatsConnection, subject: string, options: GatherOptions = {}): Promise<Msg[]> {
  const maxWaitMs = Math.max(1, options.maxWaitMs ?? GATHER_MAX_WAIT_MS);
  const quietMs = Math.max(1, options.quietMs ?? GATHER_QUIET_MS);
  const answers: Msg[] = [];
  const started = performance.now();
  return new Promise<Msg[]>((resolve, reject) => {
    let quiet: NodeJS.Timeout | undefined;
    let gap = quietMs;
    const finish = () => {
      clearTimeout(quiet);
      clearTimeout(bound);
      sub.unsubscribe();
      resolve(answers);
    };
    const bound = setTimeout(finish, maxWaitMs);
    const inbox = createInbox();
    const sub = nc.subscribe(inbox, {
      callback: (err, msg) => {
        if (err) return finish();
        if (isNoResponders(msg)) return finish();
        if (answers.length === 0) gap = Math.max(quietMs, 2 * (performance.now() - started));
        answers.push(msg);
        clearTimeout(quiet);
        quiet = setTimeout(finish, gap);
      },
    });
    try {
      nc.publish(subject, Empty, { reply: inbox });
    } catch (err) {
      clearTimeout(bound);
      sub.unsubscribe();
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}
