import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { type ContextLogger, type GoalStore, toErrorEnvelope } from '@novelrag/bus';
import {
  CancelRequest,
  InteractionAnswer,
  type Reply,
  Subjects,
  describeIssues,
  errorEnvelope,
  errorReply,
  goalIdFromSubject,
} from '@novelrag/contracts';
import type { ZodType } from 'zod';
import { notPending } from '../pursuit/interactions';
import type { RunningGoals } from './running-goals';

/**
 * The per-goal subjects every instance listens to (plain subscriptions, no queue group: only the instance pursuing the
 * goal acts, the others stay silent): cancel events and the gateway's interaction answers. (A tool's runtime events
 * and questions are heard by the executor of its call, which listens on its goal's subjects while the call runs.) Bad payloads are logged (events) or answered with VALIDATION_FAILED (requests); nothing here can
 * throw into the connection.
 */
export class GoalBusHandlers {
  private readonly subs: Subscription[] = [];

  constructor(
    private readonly nc: NatsConnection,
    private readonly running: RunningGoals,
    private readonly store: GoalStore,
    private readonly log: ContextLogger,
  ) {}

  start(): void {
    this.on(Subjects.goalCancelAll, (msg, goalId) => {
      const event = this.parse(msg, CancelRequest);
      if (event === undefined) return;
      this.running.get(goalId)?.cancel(event.requestedBy);
    });
    this.on(Subjects.interactionAnswerAll, (msg, goalId) => {
      const answer = this.parseRequest(msg, InteractionAnswer);
      if (!answer) return;
      if (answer.goalId !== goalId) {
        return respond(
          msg,
          errorReply(errorEnvelope('VALIDATION_FAILED', 'goalId does not match the subject')),
        );
      }
      const goal = this.running.get(goalId);
      if (goal) {
        void goal.answer(answer).then(
          (reply) => respond(msg, reply),
          (err: unknown) => respond(msg, errorReply(toErrorEnvelope(err))),
        );
        return;
      }
      // Not ours. Answer only what is true whoever owns the goal; a pending question is left to its owner.
      void this.store.get(goalId).then(
        (record) => {
          if (!record) {
            respond(msg, errorReply(errorEnvelope('NOT_FOUND', `goal ${goalId} does not exist`)));
          } else if (record.pendingInteraction?.interactionId !== answer.interactionId) {
            respond(msg, errorReply(notPending(answer)));
          }
        },
        () => undefined,
      );
    });
  }

  stop(): void {
    for (const sub of this.subs.splice(0)) sub.unsubscribe();
  }

  private on(subject: string, handle: (msg: Msg, goalId: string) => void): void {
    const sub = this.nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return this.log.warn('subscription error', { subject, error: err.message });
        const goalId = goalIdFromSubject(msg.subject);
        if (!goalId) return;
        try {
          handle(msg, goalId);
        } catch (e) {
          this.log.error('handler failed', { subject: msg.subject, error: String(e) });
        }
      },
    });
    this.subs.push(sub);
  }

  private parse<T>(msg: Msg, schema: ZodType<T>): T | undefined {
    let body: unknown;
    try {
      body = msg.json();
    } catch {
      this.log.warn('dropped a message that is not JSON', {
        subject: msg.subject,
        code: 'VALIDATION_FAILED',
      });
      return undefined;
    }
    const parsed = schema.safeParse(body);
    if (parsed.success) return parsed.data;
    this.log.warn('dropped an invalid message', {
      subject: msg.subject,
      code: 'VALIDATION_FAILED',
      issues: describeIssues(parsed.error),
    });
    return undefined;
  }

  /** Like `parse`, but a request gets a VALIDATION_FAILED reply. */
  private parseRequest<T>(msg: Msg, schema: ZodType<T>): T | undefined {
    let body: unknown;
    try {
      body = msg.json();
    } catch {
      respond(msg, errorReply(errorEnvelope('VALIDATION_FAILED', 'the request is not JSON')));
      return undefined;
    }
    const parsed = schema.safeParse(body);
    if (parsed.success) return parsed.data;
    respond(
      msg,
      errorReply(errorEnvelope('VALIDATION_FAILED', `invalid request: ${describeIssues(parsed.error)}`)),
    );
    return undefined;
  }
}

function respond<T>(msg: Msg, reply: Reply<T>): void {
  if (msg.reply) msg.respond(JSON.stringify(reply));
}
