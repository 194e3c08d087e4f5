import { randomBytes } from 'node:crypto';
import {
  type ErrorEnvelope,
  type InteractionAnswer,
  type InteractionAnswerAck,
  type InteractionReply,
  type InteractionRequest,
  type PendingInteraction,
  type Reply,
  type ToolInvocation,
  errorEnvelope,
  errorReply,
  okReply,
} from '@novelrag/contracts';
import type { GoalCheckpoint } from './checkpoint';
import { type StopReason, handsBack } from './stop';
import type { GoalTrace } from './trace';

export interface GoalInteractionsOptions {
  readonly checkpoint: GoalCheckpoint;
  readonly trace: GoalTrace;
  /** The call running now under that invocation id (a question of an invocation that does not run is refused). */
  readonly running: (invocationId: string) => ToolInvocation | undefined;
  /** The goal's wall-clock deadline (epoch ms). */
  readonly deadline: number;
  /** Used when the tool gives no timeout. */
  readonly defaultTimeoutMs: number;
  /**
   * The pursuit's stop, aborted with its StopReason. When the pursuit hands the goal back unfinished (graceful suspend,
   * lost thread lease, takeover), the pursuit that resumes it re-sends the running invocation with the same id, so a
   * question is then answered UNAVAILABLE (retryable: the runner records nothing, the re-sent invocation asks again),
   * never CANCELLED (which the runner records as the step's result). Any other stop (cancel, budget) answers CANCELLED.
   */
  readonly signal: AbortSignal;
  readonly now?: () => number;
}

interface Waiting {
  readonly pending: PendingInteraction;
  readonly settle: (answer: InteractionAnswer | 'timeout' | 'aborted') => void;
}

/** Margin kept before the invocation's deadline so the tool still has time to act on the answer. */
const TOOL_MARGIN_MS = 1_000;

/**
 * Human-in-the-loop for one running goal: a tool's confirm/request becomes the goal's `pendingInteraction` (status
 * `waiting_for_input`, trace `interaction.requested`); the gateway's answer resumes it (`interaction.answered`); no answer
 * before the earliest of the tool's timeout, the invocation's deadline and the goal's deadline replies `{timedOut}`
 * (`interaction.timed_out`), which tools treat as a decline. One question at a time per goal: calls running at once
 * that both ask are asked in turn (each question waits for the one before it to be answered, to expire or to be
 * stopped, which every bound above keeps short of forever).
 */
export class GoalInteractions {
  private waiting: Waiting | undefined;
  private turn: Promise<void> = Promise.resolve();
  private readonly now: () => number;

  constructor(private readonly options: GoalInteractionsOptions) {
    this.now = options.now ?? Date.now;
  }

  async request(req: InteractionRequest): Promise<Reply<InteractionReply>> {
    const before = this.turn;
    let done!: () => void;
    this.turn = new Promise<void>((resolve) => (done = resolve));
    try {
      await before;
      return await this.ask(req);
    } finally {
      done();
    }
  }

  private async ask(req: InteractionRequest): Promise<Reply<InteractionReply>> {
    if (this.handedBack()) return errorReply(this.stopped());
    const current = this.options.running(req.invocationId);
    if (!current) return errorReply(errorEnvelope('CANCELLED', 'that invocation is no longer running'));
    if (this.options.signal.aborted) return errorReply(this.stopped());
    const now = this.now();
    const expiresAt = Math.min(
      now + (req.timeoutMs ?? this.options.defaultTimeoutMs),
      current.deadline - TOOL_MARGIN_MS,
      this.options.deadline,
    );
    const base = {
      interactionId: `i-${randomBytes(8).toString('hex')}`,
      invocationId: req.invocationId,
      tool: current.tool,
      step: current.step,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(Math.max(now, expiresAt)).toISOString(),
    };
    const pending: PendingInteraction =
      req.kind === 'confirm'
        ? { ...base, kind: 'confirm', message: req.message }
        : { ...base, kind: 'request', prompt: req.prompt };

    let settle!: Waiting['settle'];
    const settled = new Promise<InteractionAnswer | 'timeout' | 'aborted'>((resolve) => (settle = resolve));
    const waiting: Waiting = { pending, settle };
    this.waiting = waiting;
    // Once an answer has claimed the question, the timer no longer applies.
    const timer = setTimeout(
      () => {
        if (this.waiting === waiting) settle('timeout');
      },
      Math.max(0, expiresAt - now),
    );
    const onAbort = () => settle('aborted');
    this.options.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await this.options.checkpoint.write(
        () => ({ status: 'waiting_for_input', pendingInteraction: pending }),
        `${pending.tool} asks the user`,
      );
      this.options.trace.emit({ kind: 'interaction.requested', interaction: pending, step: pending.step });
    } catch (err) {
      clearTimeout(timer);
      this.options.signal.removeEventListener('abort', onAbort);
      this.waiting = undefined;
      return errorReply(errorEnvelope('UNAVAILABLE', `the question could not be recorded: ${message(err)}`));
    }

    const result = await settled;
    clearTimeout(timer);
    this.options.signal.removeEventListener('abort', onAbort);
    if (this.waiting === waiting) this.waiting = undefined;
    if (result === 'aborted') return errorReply(this.stopped());
    if (result === 'timeout') {
      this.options.trace.emit({
        kind: 'interaction.timed_out',
        interactionId: pending.interactionId,
        step: pending.step,
      });
      await this.resume('nobody answered in time').catch(() => undefined);
      return okReply({ timedOut: true as const });
    }
    return okReply('approved' in result ? { approved: result.approved } : { text: result.text });
  }

  /**
   * The gateway's answer. Errors: INTERACTION_NOT_PENDING when this goal does not wait for that interaction. The ack is
   * returned before the record is updated, so it reaches the gateway before any other instance could read the cleared
   * record and answer INTERACTION_NOT_PENDING for the same question.
   */
  answer(answer: InteractionAnswer): Reply<InteractionAnswerAck> {
    const waiting = this.waiting;
    if (!waiting || waiting.pending.interactionId !== answer.interactionId) {
      return errorReply(notPending(answer));
    }
    // Claimed before any await, so a second answer racing this one is refused.
    this.waiting = undefined;
    const body = 'approved' in answer ? { approved: answer.approved } : { text: answer.text };
    void this.resume('the user answered')
      .catch(() => undefined) // the final checkpoint writes the status anyway; the tool must get its answer
      .then(() => {
        this.options.trace.emit({
          kind: 'interaction.answered',
          interactionId: answer.interactionId,
          answer: body,
          ...(answer.answeredBy ? { answeredBy: answer.answeredBy } : {}),
          step: waiting.pending.step,
        });
        waiting.settle(answer);
      });
    return okReply({ accepted: true as const });
  }

  /** Why a question is not answered: the goal ended (cancel, budget) or this pursuit handed it back. */
  private stopped(): ErrorEnvelope {
    return this.handedBack()
      ? errorEnvelope('UNAVAILABLE', 'the goal was handed to another orchestrator; ask again')
      : errorEnvelope('CANCELLED', 'the goal was cancelled');
  }

  private handedBack(): boolean {
    const { signal } = this.options;
    return signal.aborted && handsBack(signal.reason as StopReason);
  }

  private async resume(reason: string): Promise<void> {
    await this.options.checkpoint.write(
      (current) =>
        current.status === 'waiting_for_input'
          ? { status: 'running', pendingInteraction: undefined }
          : { pendingInteraction: undefined },
      reason,
    );
  }
}

export function notPending(answer: Pick<InteractionAnswer, 'goalId' | 'interactionId'>): ErrorEnvelope {
  return errorEnvelope(
    'INTERACTION_NOT_PENDING',
    `goal ${answer.goalId} is not waiting for interaction ${answer.interactionId}`,
  );
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
