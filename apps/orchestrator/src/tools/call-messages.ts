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

/** One call's registration with a CallRouter. */
export interface CallMessages {
  /** Stops routing this call's messages. Questions already being asked still get their answer. */
  close(): void;
}

/** A context that can give each tool call its own view (what that call says and asks is attributed to it). */
export interface CallScopedContext extends ExecutionContext {
  forCall(invocation: ToolInvocation): ExecutionContext;
}

/** The ExecutionContext of one call: the call's own view when `ctx` offers one, else `ctx` itself. */
export function contextForCall(ctx: ExecutionContext, invocation: ToolInvocation): ExecutionContext {
  const scoped = ctx as Partial<CallScopedContext>;
  return typeof scoped.forCall === 'function' ? scoped.forCall.call(ctx, invocation) : ctx;
}

interface Route {
  readonly invocation: ToolInvocation;
  readonly ctx: ExecutionContext;
  /** What the call's messages cause (trace events, questions) belongs to the call's span, not the subscription's. */
  readonly traceContext: ReturnType<typeof activeContext>;
  readonly modelCall: (call: ToolModelCall) => void;
}

/**
 * Listens, while calls of one goal run, on the goal's runtime and interaction subjects (`runtimeSubject`,
 * `interactSubject`: the same for every call of the goal) and routes what a tool says by the message's invocation id to
 * the ExecutionContext of THAT call, so calls running at the same time never get each other's messages: log lines,
 * output, progress and backlog become the context's calls; a confirm/request becomes `ctx.confirm`/`ctx.request`, whose
 * answer goes back to the tool (`{approved}`, `{text}`, `{timedOut}`, or the error the context raised: CANCELLED,
 * UNAVAILABLE, ...). A message of an invocation that does not run now is not routed: an event is ignored, a question
 * is answered CANCELLED. Invalid messages are dropped (a question gets VALIDATION_FAILED). A model call a tool reports
 * goes to that call's `modelCall`. Subscribed while calls run and for SUBSCRIPTION_LINGER_MS after the last one ended
 * (a goal's next call, usually soon, reuses the subscriptions instead of subscribing and unsubscribing twice per call);
 * while no call runs, a question gets no answer from here (another pursuit of the goal may hold it now).
 * Nothing here throws into the connection.
 */
/** How long a goal's runtime and question subscriptions outlive its last call (see CallRouter). */
export const SUBSCRIPTION_LINGER_MS = 5_000;

export class CallRouter {
  private readonly routes = new Map<string, Route>();
  private subs: Subscription[] = [];
  private linger: NodeJS.Timeout | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly goalId: string,
    private readonly dropped: DroppedMessage = () => undefined,
  ) {}

  /** Routes the messages of `invocation` (sent on `invocation`'s subjects) to `ctx` until closed. */
  open(
    invocation: ToolInvocation,
    ctx: ExecutionContext,
    modelCall: (call: ToolModelCall) => void = () => undefined,
  ): CallMessages {
    const route: Route = { invocation, ctx, traceContext: activeContext(), modelCall };
    this.routes.set(invocation.invocationId, route);
    clearTimeout(this.linger);
    if (this.subs.length === 0) this.subscribe(invocation);
    return {
      close: () => {
        if (this.routes.get(invocation.invocationId) === route) this.routes.delete(invocation.invocationId);
        if (this.routes.size > 0) return;
        clearTimeout(this.linger);
        this.linger = setTimeout(() => this.unsubscribe(), SUBSCRIPTION_LINGER_MS);
        this.linger.unref();
      },
    };
  }

  /** Ends the subscriptions now (no call runs, or the goal is over). */
  unsubscribe(): void {
    clearTimeout(this.linger);
    if (this.routes.size === 0) for (const sub of this.subs.splice(0)) sub.unsubscribe();
  }

  /** The call running now under that invocation id, if any. */
  running(invocationId: string): ToolInvocation | undefined {
    return this.routes.get(invocationId)?.invocation;
  }

  private subscribe(invocation: ToolInvocation): void {
    this.subs = [
      this.nc.subscribe(invocation.runtimeSubject, {
        callback: (err, msg) => {
          if (err) return;
          const event = parseBody(msg, RuntimeEvent, this.dropped);
          const route =
            event && event.goalId === this.goalId ? this.routes.get(event.invocationId) : undefined;
          if (!event || !route) return;
          runInContext(route.traceContext, () =>
            event.kind === 'llm.call' ? route.modelCall(event) : forwardEvent(route.ctx, event),
          );
        },
      }),
      this.nc.subscribe(invocation.interactSubject, {
        callback: (err, msg) => {
          // Lingering (no call runs): not answered, as if unsubscribed. The question may be of the pursuit that resumed
          // the goal after this one handed it back (its tool re-asks until someone listens): a CANCELLED from here
          // would beat that pursuit's answer and end the call.
          if (err || this.routes.size === 0) return;
          void this.answerQuestion(msg).then(
            (reply) => respond(msg, reply),
            (e: unknown) => respond(msg, errorReply(toErrorEnvelope(e))),
          );
        },
      }),
    ];
  }

  private async answerQuestion(msg: Msg): Promise<Reply<InteractionReply>> {
    const request = parseBody(msg, InteractionRequest, this.dropped);
    if (!request) return errorReply(errorEnvelope('VALIDATION_FAILED', 'invalid interaction request'));
    if (request.goalId !== this.goalId)
      return errorReply(errorEnvelope('VALIDATION_FAILED', 'goalId does not match the subject'));
    const route = this.routes.get(request.invocationId);
    if (!route) return errorReply(errorEnvelope('CANCELLED', 'that invocation is no longer running'));
    return runInContext(route.traceContext, () => askThrough(route.ctx, request));
  }
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

async function askThrough(
  ctx: ExecutionContext,
  request: InteractionRequest,
): Promise<Reply<InteractionReply>> {
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
