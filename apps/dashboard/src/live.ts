import type { AnswerDelta, TraceEvent, TraceKind } from '@novelrag/contracts';
import { followSse, type SseState } from './sse';

/** What each trace kind says about where a pursuit is (the goals table's "phase" column). */
export const PHASE_OF_KIND: Partial<Record<TraceKind, string>> = {
  'goal.accepted': 'queued',
  'goal.started': 'started',
  assessment: 'assessment',
  'discovery.plan': 'discovery',
  'context.updated': 'discovery',
  'refinement.plan': 'relevance',
  decision: 'decision',
  'analysis.verdict': 'verdict',
  'operation.dispatched': 'operation',
  'operation.outcome': 'operation',
  'interaction.requested': 'interaction',
  'interaction.answered': 'operation',
  'interaction.timed_out': 'operation',
  resolution: 'resolution',
  'goal.completed': 'ended',
  'goal.failed': 'ended',
  'goal.abandoned': 'ended',
  'goal.cancelled': 'ended',
};

export const FINAL_KINDS: readonly TraceKind[] = [
  'goal.completed',
  'goal.failed',
  'goal.abandoned',
  'goal.cancelled',
];

export interface TraceItem {
  readonly id: string | undefined;
  readonly event: TraceEvent;
}

/**
 * Follows a trace SSE endpoint, handing each parsed event over. Events of kinds this page does not know (a newer
 * gateway) are skipped, never fatal. A goal's stream also carries the live pieces of its answer (`answer.delta`, no
 * id): they go to `onDelta`.
 */
export function followTrace(
  url: string,
  signal: AbortSignal,
  onEvent: (item: TraceItem) => void,
  onState?: (state: SseState, detail?: string) => void,
  onDelta?: (delta: AnswerDelta) => void,
): Promise<void> {
  return followSse({
    url,
    signal,
    ...(onState ? { onState } : {}),
    onMessage: (m) => {
      if (m.event === 'error') {
        onState?.('reconnecting', m.data);
        return;
      }
      if (m.event === 'answer.delta') {
        const delta = parseJson(m.data) as AnswerDelta | undefined;
        if (typeof delta?.text === 'string' && typeof delta.index === 'number') onDelta?.(delta);
        return;
      }
      const event = parseJson(m.data) as TraceEvent | undefined;
      if (typeof event?.kind === 'string') onEvent({ id: m.id, event });
    },
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A small status line for a live connection. */
export function connectionLabel(state: SseState, detail?: string): string {
  const text: Record<SseState, string> = {
    connecting: 'connecting…',
    open: 'live',
    reconnecting: 'reconnecting…',
    ended: 'ended',
    failed: 'failed',
  };
  return detail ? `${text[state]} (${detail})` : text[state];
}
