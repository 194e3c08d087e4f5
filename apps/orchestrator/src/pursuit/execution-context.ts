import type { ExecutionContext } from '@novelrag/agenturn';
import type { ContextLogger } from '@novelrag/bus';
import { BacklogAddRequest, type JsonObject, type RuntimeEvent } from '@novelrag/contracts';
import type { ResourceService } from '@novelrag/resource-client';
import type { GoalTrace } from './trace';

export interface BacklogSink {
  add(content: Readonly<Record<string, unknown>>, priority: number | undefined, goalId: string): void;
}

/**
 * Forwards backlog items to the resource-service through its one backlog write (`ResourceService.backlogAdd`),
 * bounded by the service's timeout, logging failures by code only.
 */
export class ResourceBacklog implements BacklogSink {
  constructor(
    private readonly resources: Pick<ResourceService, 'backlogAdd'>,
    private readonly log: ContextLogger,
  ) {}

  add(content: Readonly<Record<string, unknown>>, priority: number | undefined, goalId: string): void {
    const parsed = BacklogAddRequest.safeParse({
      content: JSON.parse(JSON.stringify(content)) as JsonObject,
      ...(priority === undefined ? {} : { priority }),
    });
    if (!parsed.success) {
      this.log.warn('backlog item dropped', { goalId, code: 'VALIDATION_FAILED' });
      return;
    }
    void this.resources.backlogAdd(parsed.data).catch((err: unknown) =>
      this.log.warn('backlog item not stored', {
        goalId,
        code: (err as { code?: string }).code ?? 'INTERNAL',
      }),
    );
  }
}

/** A tool's runtime event: traced as `runtime`; a backlog item also goes to the resource-service. */
export function onRuntimeEvent(trace: GoalTrace, backlog: BacklogSink, event: RuntimeEvent): void {
  trace.emit({ kind: 'runtime', event, step: event.step });
  if (event.kind === 'backlog') backlog.add(event.content, event.priority, event.goalId);
}

/**
 * The ExecutionContext of the orchestrator's own side of a pursuit. Everything the planner decides is in the trace
 * already, so log lines (which carry model text) are not written anywhere; the orchestrator itself never asks the human
 * (tools do, over the interact subject), so confirm/request decline.
 */
export class GoalExecutionContext implements ExecutionContext {
  constructor(
    private readonly goalId: string,
    private readonly backlogSink: BacklogSink,
  ) {}

  debug(): void {
    // in the trace already
  }
  info(): void {
    // in the trace already
  }
  warning(): void {
    // in the trace already
  }
  error(): void {
    // in the trace already
  }
  output(): void {
    // the response is in the outcome
  }
  progress(): void {
    // tools report progress as runtime events
  }
  confirm(): Promise<boolean> {
    return Promise.resolve(false);
  }
  request(): Promise<string | null> {
    return Promise.resolve(null);
  }
  backlog(content: Readonly<Record<string, unknown>>, priority?: number): void {
    this.backlogSink.add(content, priority, this.goalId);
  }
}
