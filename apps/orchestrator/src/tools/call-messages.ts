import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { ExecutionContext } from '@novelrag/agenturn';
import { toErrorEnvelope } from '@novelrag/bus';
import {
  type ErrorEnvelope,
  InteractionReply,
  InteractionRequest,
  type Reply,
  RuntimeEvent,
  type ToolInvocation,
  describeIssues,
  errorEnvelope,
  errorReply,
  okReply,
} from '@novelrag/contracts';
import { activeContext, runInContext } from '@novelrag/telemetry';
import type { ZodType } from 'zod';

/** Where a message of a call that cannot be read is reported (subject and code only: no content). */
export type DroppedMessage = (subject: string, issues: string) => void;

/** A model call the tool reported (usage only). */
export type ToolModelCall = Extract<RuntimeEvent, { kind: 'llm.call' }>;

/** The subscriptions that carry one call's runtime events and questions into its ExecutionContext. */
export interface CallMessages {
  /** Stops listening. Questions already being asked still get their answer. */
  close(): void;
}

/**
 * Listens, while one invocation runs, on the subjects it was given (`runtimeSubject`, `interactSubject`) and forwards
 * what its tool says into `ctx`: log lines, output, progress and backlog as the context's calls; a confirm/request as
 * `ctx.confirm`/`ctx.request`, whose answer goes back to the tool (`{approved}`, `{text}`, `{timedOut}`, or the error
 * the context raised: CANCELLED, UNAVAILABLE, ...). Messages of other invocations of the goal are not this call's:
 * events are ignored, a question is answered CANCELLED (that invocation no longer runs). Invalid messages are dropped
 * (a question gets VALIDATION_FAILED). A model call the tool reports goes to `modelCall`. Nothing here throws into the
 * connection.
 */
export function forwardCallMessages(
  nc: NatsConnection,
  invocation: ToolInvocation,
  ctx: ExecutionContext,
  dropped: DroppedMessage = () => undefined,
  modelCall: (call: ToolModelCall) => void = () => undefined,
): CallMessages {
  // What the messages cause (trace events, questions) belongs to the call's span, not to the subscription's.
  const traceContext = activeContext();
  const subs: Subscription[] = [
    nc.subscribe(invocation.runtimeSubject, {
      callback: (err, msg) => {
        if (err) return;
        const event = parseBody(msg, RuntimeEvent, dropped);
        if (event?.invocationId !== invocation.invocationId || event.goalId !== invocation.goalId) return;
        runInContext(traceContext, () =>
          event.kind === 'llm.call' ? modelCall(event) : forwardEvent(ctx, event),
        );
      },
    }),
    nc.subscribe(invocation.interactSubject, {
      callback: (err, msg) => {
        if (err) return;
        void runInContext(traceContext, () => answerQuestion(msg, invocation, ctx, dropped)).then(
          (reply) => respond(msg, reply),
          (e: unknown) => respond(msg, errorReply(toErrorEnvelope(e))),
        );
      },
    }),
  ];
  return {
    close: () => {
      for (const sub of subs.splice(0)) sub.unsubscribe();
    },
  };
}

function forwardEvent(ctx: ExecutionContext, event: RuntimeEvent): void {
  switch (event.kind) {
    case 'debug':
      return ctx.debug(event.message);
    case 'info':
      return ctx.info(event.message);
    case 'warning':
      return ctx.warning(event.message);
    case 'error':
      return ctx.error(event.message);
    case 'output':
      return ctx.output(event.message);
    case 'progress':
      return ctx.progress(event.key, event.value, event.description);
    case 'backlog':
      return ctx.backlog(event.content, event.priority);
    case 'llm.call':
      return; // usage, not a message for the context: counted by the caller
  }
}

async function answerQuestion(
  msg: Msg,
  invocation: ToolInvocation,
  ctx: ExecutionContext,
  dropped: DroppedMessage,
): Promise<Reply<InteractionReply>> {
  const request = parseBody(msg, InteractionRequest, dropped);
  if (!request) return errorReply(errorEnvelope('VALIDATION_FAILED', 'invalid interaction request'));
  if (request.goalId !== invocation.goalId)
    return errorReply(errorEnvelope('VALIDATION_FAILED', 'goalId does not match the subject'));
  if (request.invocationId !== invocation.invocationId)
    return errorReply(errorEnvelope('CANCELLED', 'that invocation is no longer running'));
  let timedOut = false;
  const options = {
    ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
    onTimeout: () => (timedOut = true),
  };
  if (request.kind === 'confirm') {
    const approved = await ctx.confirm(request.message, options);
    return okReply(timedOut ? { timedOut: true as const } : { approved });
  }
  const text = await ctx.request(request.prompt, options);
  if (text !== null) return okReply({ text });
  return okReply(timedOut ? { timedOut: true as const } : { approved: false });
}

function parseBody<T>(msg: Msg, schema: ZodType<T>, dropped: DroppedMessage): T | undefined {
  let body: unknown;
  try {
    body = msg.json();
  } catch {
    dropped(msg.subject, 'not JSON');
    return undefined;
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  dropped(msg.subject, describeIssues(parsed.error));
  return undefined;
}

function respond(msg: Msg, reply: Reply<InteractionReply> | { ok: false; error: ErrorEnvelope }): void {
  if (!msg.reply) return;
  try {
    msg.respond(JSON.stringify(reply));
  } catch {
    // the connection is closing: the tool's own wait is bounded
  }
}
