import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  BusError,
  type GoalStore,
  KvGoalStore,
  NATS_CONNECTION,
  acceptGoal,
  busRequest,
  ensureGoalsStream,
  ensureTraceStream,
} from '@novelrag/bus';
import {
  CancelRequest,
  GoalRecord,
  GoalSubmission,
  InteractionAnswer,
  InteractionAnswerAck,
  type ListGoalsQuery,
  type NextGoalBody,
  type SubmitGoalBody,
  NextGoalReply,
  DEFAULT_AGENT_KIND,
  SCHEMA_VERSION,
  Subjects,
  isTerminalStatus,
} from '@novelrag/contracts';
import { ApiError } from '../http/api-error';
import { storeAnswer } from './stored-answer';

const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{1,128}$/;
const GOAL_ID = /^[A-Za-z0-9_-]{1,128}$/;

export type PublicGoal = Omit<GoalRecord, 'revision'>;

/** Goal submission, reads and cancellation: the goals KV bucket is the record, the GOALS stream the work queue. */
@Injectable()
export class GoalsService implements OnApplicationBootstrap {
  private store: GoalStore | undefined;
  /** The acceptances of this event-loop turn wait for it together (see `sameTurn`). */
  private turn: Promise<void> | undefined;

  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  async onApplicationBootstrap(): Promise<void> {
    // Created when missing, never changed: the orchestrator owns their config (and the gateway's NATS user may not).
    await ensureGoalsStream(this.nc, {}, {}, { createOnly: true });
    await ensureTraceStream(this.nc, {}, { createOnly: true });
    this.store = await KvGoalStore.open(this.nc);
  }

  private goals(): GoalStore {
    if (!this.store) throw new ApiError('UNAVAILABLE', 'the goal store is not ready yet');
    return this.store;
  }

  /**
   * Accepts a goal: the record is created in KV, then the submission is published to GOALS and acknowledged by the
   * stream before this returns (a 202 is durable). With an Idempotency-Key the goal id is derived from the key and the
   * caller, so a repeated call returns the first goal instead of creating another.
   */
  async submit(
    dto: SubmitGoalBody,
    principal: string,
    idempotencyKey?: string,
  ): Promise<{ goal: PublicGoal; created: boolean }> {
    if ((dto.request == null) === (dto.goal == null)) {
      throw new ApiError('VALIDATION_FAILED', 'exactly one of "request" and "goal" must be set');
    }
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw new ApiError('VALIDATION_FAILED', 'Idempotency-Key must be 1-128 characters of A-Z a-z 0-9 _ -');
    }
    const goalId = idempotencyKey
      ? `g-${createHash('sha256').update(`${principal}:${idempotencyKey}`).digest('hex').slice(0, 24)}`
      : `g-${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    const now = new Date().toISOString();
    // Validated (and completed with its defaults) by acceptGoal, once.
    const submission: GoalSubmission = {
      schemaVersion: SCHEMA_VERSION,
      goalId,
      ...(dto.threadId ? { threadId: dto.threadId } : {}),
      ...(dto.request != null ? { request: dto.request } : { goal: dto.goal }),
      ...(dto.lang ? { lang: dto.lang } : {}),
      beliefs: dto.beliefs ?? [],
      ...(dto.limits ? { limits: { ...dto.limits } } : {}),
      submittedAt: now,
      ...(idempotencyKey ? { idempotencyKey } : {}),
      source: 'user',
      agent: dto.agent ?? DEFAULT_AGENT_KIND,
    };
    try {
      await this.sameTurn();
      const { record, created } = await acceptGoal(this.nc, this.goals(), submission);
      return { goal: strip(record), created };
    } catch (err) {
      if (err instanceof BusError && err.code === 'CONFLICT') {
        throw new ApiError('CONFLICT', 'this Idempotency-Key was already used with a different request', {
          goalId,
        });
      }
      throw err;
    }
  }

  /**
   * Resolves once the requests read in this event-loop turn have been handled up to here, for all of them at once: their
   * acceptances then run in step, so the NATS client sends their KV creates (and, as the acks come back together, their
   * GOALS publishes) in one socket write instead of one write per goal. Each goal still does both round trips in order.
   */
  private sameTurn(): Promise<void> {
    this.turn ??= new Promise((resolve) =>
      setImmediate(() => {
        this.turn = undefined;
        resolve();
      }),
    );
    return this.turn;
  }

  async get(goalId: string): Promise<PublicGoal> {
    if (!GOAL_ID.test(goalId))
      throw new ApiError('VALIDATION_FAILED', 'goal id must be 1-128 characters of A-Z a-z 0-9 _ -');
    const goal = await this.goals().get(goalId);
    if (!goal) throw new ApiError('NOT_FOUND', `goal ${goalId} does not exist`, { goalId });
    return strip(goal);
  }

  async list(query: ListGoalsQuery): Promise<{ goals: PublicGoal[]; nextCursor: string | null }> {
    const page = await this.goals().list({
      ...(query.status ? { status: query.status } : {}),
      ...(query.threadId ? { threadId: query.threadId } : {}),
      ...(query.agent ? { agent: query.agent } : {}),
      ...(query.limit ? { limit: query.limit } : {}),
      ...(query.cursor ? { cursor: query.cursor } : {}),
    });
    return { goals: page.goals.map(strip), nextCursor: page.nextCursor };
  }

  /**
   * Delivers a human answer to the goal's pending interaction. The answer is first stored with the question in the goal
   * record (compare-and-swap: only while that question is pending and unanswered, or answered the same way), then the
   * orchestrator holding the goal is told and resumes the tool. When no orchestrator takes it now (none holds the goal
   * after a crash, or it is handing the goal over), the stored answer is applied when the goal's resumed pursuit asks
   * the question again: the reply then says `deferred` (HTTP 202). Errors: NOT_FOUND (goal), INTERACTION_NOT_PENDING
   * (no such pending question, or it was answered otherwise), VALIDATION_FAILED.
   */
  async answer(
    goalId: string,
    interactionId: string,
    body: { approved?: boolean; text?: string },
    principal: string,
  ): Promise<InteractionAnswerAck> {
    if (!INTERACTION_ID.test(interactionId)) {
      throw new ApiError('VALIDATION_FAILED', 'interaction id must be 1-128 characters of A-Z a-z 0-9 _ -');
    }
    if ((body.approved == null) === (body.text == null)) {
      throw new ApiError('VALIDATION_FAILED', 'exactly one of "approved" and "text" must be set');
    }
    await this.get(goalId); // validates the id, NOT_FOUND
    const answer = InteractionAnswer.parse({
      schemaVersion: SCHEMA_VERSION,
      goalId,
      interactionId,
      ...(body.approved != null ? { approved: body.approved } : { text: body.text }),
      answeredBy: principal,
      at: new Date().toISOString(),
    });
    await storeAnswer(this.goals(), answer);
    try {
      return await busRequest(
        this.nc,
        Subjects.interactionAnswer(goalId, interactionId),
        answer,
        InteractionAnswerAck,
        { timeoutMs: ANSWER_NOTIFY_TIMEOUT_MS },
      );
    } catch (err) {
      // Stored is accepted: nobody (or not the pursuit that asked) took it now; the resumed pursuit will.
      if (err instanceof BusError && DEFERRABLE.has(err.code)) return { accepted: true, deferred: true };
      throw err;
    }
  }

  /**
   * Autonomous mode: any orchestrator's deciders (backlog, exploration) choose the next goal and queue it (source
   * `autonomous`). `{goal: null}` when there is nothing worth doing. Errors: NO_RESPONDERS (no orchestrator),
   * UNAVAILABLE (no LLM configured there), TIMEOUT.
   */
  async next(dto: NextGoalBody): Promise<NextGoalReply> {
    return busRequest(
      this.nc,
      Subjects.autonomousNext,
      {
        schemaVersion: SCHEMA_VERSION,
        submit: true,
        ...(dto.beliefs ? { beliefs: dto.beliefs } : {}),
        ...(dto.threadId ? { threadId: dto.threadId } : {}),
        ...(dto.lang ? { lang: dto.lang } : {}),
        ...(dto.limits ? { limits: { ...dto.limits } } : {}),
      },
      NextGoalReply,
      { timeoutMs: NEXT_GOAL_TIMEOUT_MS },
    );
  }

  /**
   * Requests cancellation: the KV flag makes it durable (an orchestrator picking the goal up later sees it), the
   * event stops a running pursuit at its next safe point. A queued goal is cancelled at once. Terminal → CONFLICT.
   */
  async cancel(goalId: string, principal: string): Promise<PublicGoal> {
    const updated = await this.goals()
      .mutate(goalId, (goal) => {
        if (isTerminalStatus(goal.status)) {
          throw new ApiError('CONFLICT', `goal ${goalId} is already ${goal.status}`, { status: goal.status });
        }
        const now = new Date().toISOString();
        if (goal.status === 'queued') {
          return {
            ...goal,
            status: 'cancelled',
            cancelRequested: true,
            updatedAt: now,
            outcome: {
              status: 'cancelled',
              response: '',
              reason: 'cancelled before the pursuit started',
              steps: 0,
              tokens: goal.usage,
              finishedAt: now,
            },
          };
        }
        return { ...goal, cancelRequested: true, updatedAt: now };
      })
      .catch((err: unknown) => {
        if (err instanceof BusError && err.code === 'NOT_FOUND') {
          throw new ApiError('NOT_FOUND', `goal ${goalId} does not exist`, { goalId });
        }
        throw err;
      });
    const event = CancelRequest.parse({
      schemaVersion: SCHEMA_VERSION,
      goalId,
      requestedBy: principal,
      at: new Date().toISOString(),
    });
    this.nc.publish(Subjects.goalCancel(goalId), JSON.stringify(event));
    return strip(updated);
  }
}

/** Bound on the autonomous deciders (several model calls). */
const NEXT_GOAL_TIMEOUT_MS = 180_000;

const INTERACTION_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Bound on telling the orchestrator about an answer that is already stored. */
const ANSWER_NOTIFY_TIMEOUT_MS = 5_000;
/** Why an orchestrator may not take a stored answer now; the answer is applied when the goal resumes. */
const DEFERRABLE: ReadonlySet<string> = new Set([
  'NO_RESPONDERS',
  'TIMEOUT',
  'UNAVAILABLE',
  'INTERACTION_NOT_PENDING',
]);

/** The public view of a record: its revision dropped, its agent kind always shown (absent in older records). */
function strip(goal: GoalRecord): PublicGoal {
  const { revision: _revision, ...rest } = goal;
  return { ...rest, agent: rest.agent ?? DEFAULT_AGENT_KIND };
}
