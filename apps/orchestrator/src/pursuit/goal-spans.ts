import { DEFAULT_AGENT_KIND, type GoalRecord } from '@novelrag/contracts';
import {
  type Context,
  type Span,
  activeContext,
  contextOfTraceparent,
  inSpan,
  startSpan,
  traceparentOf,
} from '@novelrag/telemetry';
import type { StepSpans } from '../agents/step-spans';

/**
 * The OpenTelemetry spans of one pursuit below its goal span: one span per step, started when the step's first work
 * (its decision or its tool call) asks for it and ended when the next step starts or the pursuit ends. With tracing off
 * the spans are no-ops.
 */
export class GoalSpans implements StepSpans {
  private current: { readonly index: number; readonly span: Span; readonly context: Context } | undefined;

  constructor(
    private readonly goal: Context,
    private readonly goalId: string,
  ) {}

  /** The context of step `index` (its span starts on first use; the previous step's span ends then). */
  stepContext(index: number): Context {
    if (this.current?.index === index) return this.current.context;
    this.current?.span.end();
    const { span, context } = startSpan('step', {
      parent: this.goal,
      attributes: { 'novelrag.goal.id': this.goalId, 'novelrag.step': index },
    });
    this.current = { index, span, context };
    return context;
  }

  currentContext(): Context {
    return this.current?.context ?? this.goal;
  }

  /** Ends the open step span (the pursuit is over). */
  end(): void {
    this.current?.span.end();
    this.current = undefined;
  }
}

/**
 * Runs one pursuit inside the goal's span: a child of the trace context stored in the goal record (so a resumption
 * after a crash joins the same trace), else of the active one (the submission message's). The step spans end with it.
 */
export function inGoalSpan<T>(
  record: GoalRecord,
  attempt: number,
  fn: (spans: GoalSpans) => Promise<T>,
): Promise<T> {
  return inSpan(
    'pursue goal',
    {
      ...(record.traceparent ? { parent: contextOfTraceparent(record.traceparent) } : {}),
      attributes: {
        'novelrag.goal.id': record.goalId,
        'novelrag.thread.id': record.threadId,
        'novelrag.agent.kind': record.agent ?? DEFAULT_AGENT_KIND,
        'novelrag.attempt': attempt,
      },
    },
    async () => {
      const spans = new GoalSpans(activeContext(), record.goalId);
      try {
        return await fn(spans);
      } finally {
        spans.end();
      }
    },
  );
}

/** `{traceparent}` of the active span, to store in a goal record; empty while tracing is off. */
export function currentTraceparent(): Pick<GoalRecord, 'traceparent'> {
  const traceparent = traceparentOf();
  return traceparent ? { traceparent } : {};
}
