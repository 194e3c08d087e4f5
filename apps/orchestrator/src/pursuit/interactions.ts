import { randomBytes } from 'node:crypto';
import {
  type ErrorEnvelope,
  type GoalRecord,
  type InteractionAnswer,
  type InteractionAnswerBody,
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
  readonly checkpoint: Pick<GoalCheckpoint, 'write' | 'refresh' | 'record'>;
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
  /** How often a waiting question re-reads the record for a stored answer (default 2 s). */
  readonly recordPollMs?: number;
  readonly now?: () => number;
}

type Answered = { readonly body: InteractionAnswerBody; readonly answeredBy?: string };
type Settled = Answered | 'timeout' | 'aborted';

interface Waiting {
  readonly pending: PendingInteraction;
  readonly settle: (result: Settled) => void;
  /** Set once an answer, the expiry or a stored answer took the question: nothing else may. */
  claimed: boolean;
  /** The reply every asker of this question gets (the runner repeats its question while it waits). */
  reply?: Promise<Reply<InteractionReply>>;
}

/** Margin kept before the invocation's deadline so the tool still has time to act on the answer. */
const TOOL_MARGIN_MS = 1_000;
/** How often a waiting question re-reads the goal record for an answer the gateway stored there. */
const DEFAULT_RECORD_POLL_MS = 2_000;

/**
 * Human-in-the-loop for one running goal: a tool's confirm/request becomes the goal's `pendingInteraction` (status
 * `waiting_for_input`, trace `interaction.requested`), a durable record with the exact text shown. The gateway stores
 * the answer in that record and tells the pursuit (`answer`); the pursuit also re-reads the record while it waits, so
 * an answer given while no orchestrator held the goal is applied too (`interaction.answered`). No answer before the
 * earliest of the tool's timeout (else the configured default), the invocation's deadline and the goal's deadline
 * replies `{timedOut}` (`interaction.timed_out`), which tools treat as a decline. One question at a time per goal; the
 * same invocation asking the same question again (the runner keeps its question alive, or the call was re-sent after a
 * crash) joins it: a question already recorded is taken over (same id and expiry) and never shown twice. Calls
 * running at once that both ask are asked in turn (each question waits for the one before it to be answered, to expire
 * or to be stopped, which every bound above keeps short of forever).
 */
export class GoalInteractions {
  private waiting: Waiting | undefined;
  private turn: Promise<void> = Promise.resolve();
  private idle = true;
  /** Questions waiting for their turn, by invocation. */
  private readonly queued = new Map<
    string,
    { readonly req: InteractionRequest; readonly reply: Promise<Reply<InteractionReply>> }
  >();
  private readonly now: () => number;

  constructor(private readonly options: GoalInteractionsOptions) {
    this.now = options.now ?? Date.now;
  }

  request(req: InteractionRequest): Promise<Reply<InteractionReply>> {
    const waiting = this.waiting;
    if (waiting?.reply && sameQuestion(waiting.pending, req)) return waiting.reply; // asked again: joins it
    // A question still waiting for its turn, asked again, joins it too (the runner re-sends it while it waits).
    const queued = this.queued.get(req.invocationId);
    if (queued && sameRequest(queued.req, req)) return queued.reply;
    if (queued || waiting?.pending.invocationId === req.invocationId) {
      return Promise.resolve(
        errorReply(errorEnvelope('CONFLICT', 'another interaction of this call is pending')),
      );
    }
    // One question at a time: asked at once when none is open or queued, else after the ones before it.
    const before = this.turn;
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    this.turn = mine;
    const asked = this.idle ? this.ask(req) : this.askAfter(before, req);
    this.idle = false;
    const release = () => {
      done();
      if (this.turn === mine) this.idle = true;
    };
    asked.then(release, release);
    return asked;
  }

  /** Asks `req` once the questions before it are done; until then a repeat of it joins this reply. */
  private askAfter(before: Promise<void>, req: InteractionRequest): Promise<Reply<InteractionReply>> {
    const reply = before.then(() => {
      this.queued.delete(req.invocationId);
      return this.ask(req);
    });
    this.queued.set(req.invocationId, { req, reply });
    return reply;
  }

  private ask(req: InteractionRequest): Promise<Reply<InteractionReply>> {
    if (this.handedBack()) return Promise.resolve(errorReply(this.stopped()));
    const current = this.options.running(req.invocationId);
    if (!current)
      return Promise.resolve(errorReply(errorEnvelope('CANCELLED', 'that invocation is no longer running')));
    const waiting = this.waiting;
    if (waiting?.reply && sameQuestion(waiting.pending, req)) return waiting.reply;
    if (this.options.signal.aborted) return Promise.resolve(errorReply(this.stopped()));
    const carried = this.options.checkpoint.record.pendingInteraction;
    const pending = carried && sameQuestion(carried, req) ? carried : this.fresh(req, current);
    return this.open(pending, pending !== carried);
  }

  /**
   * The gateway's answer (already stored in the record). Errors: INTERACTION_NOT_PENDING when this pursuit does not
   * wait for that interaction now (a stored answer then waits for the question to be asked again). The ack is returned
   * before the record is updated.
   */
  answer(answer: InteractionAnswer): Reply<InteractionAnswerAck> {
    const waiting = this.waiting;
    if (!waiting || waiting.pending.interactionId !== answer.interactionId || waiting.claimed) {
      return errorReply(notPending(answer));
    }
    // Claimed before any await, so a second answer racing this one (or the expiry) is refused.
    waiting.claimed = true;
    const body = 'approved' in answer ? { approved: answer.approved } : { text: answer.text };
    waiting.settle({ body, ...(answer.answeredBy ? { answeredBy: answer.answeredBy } : {}) });
    return okReply({ accepted: true as const });
  }

  private fresh(req: InteractionRequest, current: ToolInvocation): PendingInteraction {
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
    return req.kind === 'confirm'
      ? { ...base, kind: 'confirm', message: req.message }
      : { ...base, kind: 'request', prompt: req.prompt };
  }

  private open(pending: PendingInteraction, fresh: boolean): Promise<Reply<InteractionReply>> {
    let settle!: Waiting['settle'];
    const settled = new Promise<Settled>((resolve) => (settle = resolve));
    const waiting: Waiting = { pending, settle, claimed: false };
    this.waiting = waiting;
    const reply = this.wait(waiting, settled, fresh).finally(() => {
      if (this.waiting === waiting) this.waiting = undefined;
    });
    waiting.reply = reply;
    return reply;
  }

  private async wait(
    waiting: Waiting,
    settled: Promise<Settled>,
    fresh: boolean,
  ): Promise<Reply<InteractionReply>> {
    const { pending } = waiting;
    const claim = (result: Settled) => {
      if (waiting.claimed) return;
      waiting.claimed = true;
      waiting.settle(result);
    };
    const timer = setTimeout(() => claim('timeout'), Math.max(0, Date.parse(pending.expiresAt) - this.now()));
    const onAbort = () => waiting.settle('aborted');
    this.options.signal.addEventListener('abort', onAbort, { once: true });
    const poll = setInterval(() => {
      void this.options.checkpoint.refresh().then(
        (record) => {
          const stored = storedAnswer(record.pendingInteraction, pending.interactionId);
          if (stored) claim(stored);
        },
        () => undefined, // the next poll tries again; the bus answer and the expiry do not depend on it
      );
    }, this.options.recordPollMs ?? DEFAULT_RECORD_POLL_MS);
    const cleanUp = () => {
      clearTimeout(timer);
      clearInterval(poll);
      this.options.signal.removeEventListener('abort', onAbort);
    };
    try {
      const record = await this.options.checkpoint.write(
        (current) => ({
          status: 'waiting_for_input',
          // The record of this question keeps what the gateway stored in it (an answer given meanwhile).
          pendingInteraction:
            current.pendingInteraction?.interactionId === pending.interactionId
              ? current.pendingInteraction
              : pending,
        }),
        `${pending.tool} asks the user`,
      );
      if (fresh) {
        this.options.trace.emit({ kind: 'interaction.requested', interaction: pending, step: pending.step });
      }
      const stored = storedAnswer(record.pendingInteraction, pending.interactionId);
      if (stored) claim(stored);
    } catch (err) {
      cleanUp();
      return errorReply(errorEnvelope('UNAVAILABLE', `the question could not be recorded: ${message(err)}`));
    }
    const result = await settled;
    cleanUp();
    if (result === 'aborted') return errorReply(this.stopped());
    if (result === 'timeout') return this.expire(pending);
    // The final checkpoint writes the status anyway; the tool must get its answer.
    await this.options.checkpoint.write(closed, 'the user answered').catch(() => undefined);
    return this.traceAnswer(pending, result);
  }

  /** The expiry, unless an answer was stored in the record meanwhile (then that answer counts). */
  private async expire(pending: PendingInteraction): Promise<Reply<InteractionReply>> {
    let stored: Answered | undefined;
    try {
      await this.options.checkpoint.write((current) => {
        stored = storedAnswer(current.pendingInteraction, pending.interactionId);
        return closed(current);
      }, 'nobody answered in time');
    } catch {
      stored = undefined; // the final checkpoint clears the question anyway
    }
    if (stored) return this.traceAnswer(pending, stored);
    this.options.trace.emit({
      kind: 'interaction.timed_out',
      interactionId: pending.interactionId,
      step: pending.step,
    });
    return okReply({ timedOut: true as const });
  }

  private traceAnswer(pending: PendingInteraction, answer: Answered): Reply<InteractionReply> {
    this.options.trace.emit({
      kind: 'interaction.answered',
      interactionId: pending.interactionId,
      answer: answer.body,
      ...(answer.answeredBy ? { answeredBy: answer.answeredBy } : {}),
      step: pending.step,
    });
    return okReply(answer.body);
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
}

/** The record's change that closes a question: back to running, no pending interaction. */
function closed(current: GoalRecord): Partial<GoalRecord> {
  return current.status === 'waiting_for_input'
    ? { status: 'running', pendingInteraction: undefined }
    : { pendingInteraction: undefined };
}

/** Whether `req` asks exactly what `pending` shows, for the same invocation. */
function sameQuestion(pending: PendingInteraction, req: InteractionRequest): boolean {
  if (pending.invocationId !== req.invocationId || pending.kind !== req.kind) return false;
  return pending.kind === 'confirm'
    ? req.kind === 'confirm' && pending.message === req.message
    : req.kind === 'request' && pending.prompt === req.prompt;
}

/** Whether two requests ask the same thing of the human (same call, same kind, same text). */
function sameRequest(a: InteractionRequest, b: InteractionRequest): boolean {
  if (a.invocationId !== b.invocationId) return false;
  if (a.kind === 'confirm') return b.kind === 'confirm' && a.message === b.message;
  return b.kind === 'request' && a.prompt === b.prompt;
}

function storedAnswer(pending: PendingInteraction | undefined, interactionId: string): Answered | undefined {
  if (!pending?.answer || pending.interactionId !== interactionId) return undefined;
  return { body: pending.answer, ...(pending.answeredBy ? { answeredBy: pending.answeredBy } : {}) };
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
