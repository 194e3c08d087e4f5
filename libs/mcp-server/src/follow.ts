import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { FINAL_TRACE_KINDS, type TraceEvent } from '@novelrag/contracts';
import { ApiCallError, type NovelragApi } from './api-client';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** How a follow ended: the goal's final event, a question it waits on, or the caller's bound. */
export type FollowEnd =
  | { readonly kind: 'final'; readonly event: TraceEvent }
  | {
      readonly kind: 'interaction';
      readonly event: Extract<TraceEvent, { kind: 'interaction.requested' }>;
      /** The trace id of that event: follow again after it (`Last-Event-ID`). */
      readonly eventId: string | undefined;
    }
  | { readonly kind: 'timeout' };

/** Reconnects in a row (Last-Event-ID) before a dropped trace is reported as an error. */
const MAX_RECONNECTS = 3;

/** A one-line, content-free summary of a trace event for a progress notification. */
export function describeEvent(event: TraceEvent): string {
  switch (event.kind) {
    case 'operation.dispatched':
      return `step: calling ${event.tool}`;
    case 'operation.outcome':
      return `step: ${event.tool} ${event.status}`;
    case 'goal.status_changed':
      return `status: ${event.to}`;
    case 'interaction.requested':
      return `waiting for an answer to interaction ${event.interaction.interactionId}`;
    default:
      return event.kind;
  }
}

export interface FollowOptions {
  readonly waitMs: number;
  /** Whether an interaction request seen in the trace ends the follow (it may have been answered since). */
  readonly stopOnInteraction: (interactionId: string) => Promise<boolean>;
  /** Follow after this trace event id (Last-Event-ID) instead of from the start. */
  readonly after?: string | undefined;
}

/**
 * Follows a goal's trace from the start (or `after`), sending one MCP progress notification per event when the client
 * asked for progress (a `progressToken`), until the final event, a pending interaction request or `waitMs`.
 * A client cancellation (`extra.signal`) cancels the goal through the API and rethrows.
 */
export async function followGoal(
  api: NovelragApi,
  goalId: string,
  extra: ToolExtra,
  options: FollowOptions,
): Promise<FollowEnd> {
  const token = extra._meta?.progressToken;
  const bound = AbortSignal.timeout(options.waitMs);
  const signal = AbortSignal.any([extra.signal, bound]);
  let progress = 0;
  let lastId = options.after;
  let reconnects = 0;
  try {
    for (;;) {
      try {
        for await (const { id, event } of api.trace(goalId, signal, lastId)) {
          lastId = id ?? lastId;
          reconnects = 0;
          progress += 1;
          if (token !== undefined)
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress, message: describeEvent(event) },
            });
          if (FINAL_TRACE_KINDS.includes(event.kind)) return { kind: 'final', event };
          if (
            event.kind === 'interaction.requested' &&
            (await options.stopOnInteraction(event.interaction.interactionId))
          )
            return { kind: 'interaction', event, eventId: id };
        }
        throw new ApiCallError(503, 'UNAVAILABLE', 'the trace ended before the goal did');
      } catch (err) {
        if (signal.aborted || !(err instanceof ApiCallError) || err.status < 500) throw err;
        if (++reconnects > MAX_RECONNECTS) throw err;
      }
    }
  } catch (err) {
    if (extra.signal.aborted) {
      await api.call('POST', `/v1/goals/${encodeURIComponent(goalId)}/cancel`).catch(() => undefined);
      throw err;
    }
    if (bound.aborted) return { kind: 'timeout' };
    throw err;
  }
}
