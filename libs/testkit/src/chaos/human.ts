import type { TraceEvent } from '@novelrag/contracts';

/** One answer the "human" gave over REST, and how the gateway took it. */
export interface HumanAnswer {
  readonly goalId: string;
  readonly interactionId: string;
  readonly approved: boolean;
  /** The last HTTP status (2xx: accepted). */
  readonly status: number;
}

export interface HumanOptions {
  /** Probability that a question gets an answer at all (the others are left to expire). */
  readonly answerRate: number;
  /** Probability that an answered confirmation is approved. */
  readonly approveRate: number;
  /** Longest think time before answering. */
  readonly maxThinkMs: number;
  readonly random: () => number;
  readonly log: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Statuses a client tries again: no answer, rate limited, the bus or an orchestrator away. */
const RETRIED = new Set([0, 429, 503, 504]);
/** The longest wait a 429's Retry-After may ask for (the interaction would expire meanwhile anyway). */
const MAX_RETRY_AFTER_MS = 10_000;

/** The wait a 429 asks for: its Retry-After in seconds, at least 1 s and at most MAX_RETRY_AFTER_MS. */
export function retryAfterMs(header: string | null): number {
  const seconds = Number(header);
  if (!header || !Number.isFinite(seconds)) return 1_000;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(1_000, Math.round(seconds * 1_000)));
}

/**
 * A "human" at the REST API: answers the confirmations it hears asked (trace `interaction.requested`), at random,
 * after a random think time. A 429 (rate limited) is tried again after its Retry-After (bounded), a 503/504 (the bus or
 * an orchestrator away) after a second, at most 20 tries, like a real client; a 404/409 (no longer pending) ends it. Every answer and its final status is recorded.
 */
export class ChaosHuman {
  readonly answers: HumanAnswer[] = [];
  readonly skipped = new Set<string>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly gatewayUrl: string,
    private readonly options: HumanOptions,
  ) {}

  hear(event: TraceEvent): void {
    if (event.kind !== 'interaction.requested') return;
    const id = event.interaction.interactionId;
    if (this.answers.some((a) => a.interactionId === id) || this.skipped.has(id)) return;
    if (this.options.random() >= this.options.answerRate) {
      this.skipped.add(id);
      return;
    }
    const approved = this.options.random() < this.options.approveRate;
    const think = Math.floor(this.options.random() * this.options.maxThinkMs);
    const p = this.answer(event.goalId, id, approved, think).finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  private async answer(goalId: string, interactionId: string, approved: boolean, thinkMs: number) {
    await sleep(thinkMs);
    let status = 0;
    for (let attempt = 1; attempt <= 20; attempt++) {
      let waitMs = 1_000;
      try {
        const res = await fetch(`${this.gatewayUrl}/v1/goals/${goalId}/interactions/${interactionId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ approved }),
          signal: AbortSignal.timeout(15_000),
        });
        status = res.status;
        if (status === 429) waitMs = retryAfterMs(res.headers.get('retry-after'));
        await res.body?.cancel();
      } catch {
        status = 0;
      }
      if (!RETRIED.has(status)) break;
      await sleep(waitMs);
    }
    this.options.log(`human: ${approved ? 'approved' : 'declined'} ${interactionId} → ${status}`);
    this.answers.push({ goalId, interactionId, approved, status });
  }

  /** Waits for the answers under way (each bounded by its attempts). */
  async settle(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}
