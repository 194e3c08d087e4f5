import { randomUUID } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ChatModel, Goal, InteractionHistory, PromptRenderer } from '@novelrag/agenturn';
import { BusError, type GoalStore, type ThreadStore, acceptGoal } from '@novelrag/bus';
import {
  GoalSubmission,
  MAX_LABEL_CHARS,
  MAX_REQUEST_CHARS,
  NextGoalReply,
  NextGoalRequest,
  SCHEMA_VERSION,
} from '@novelrag/contracts';
import { BacklogGoalDecider, CompositeGoalDecider, ExplorationGoalDecider } from '../deciders';
import type { ResourceReader } from '../loop';
import { formatThreadHistory } from '../threads/thread-history';

export interface NextGoalDeps {
  readonly nc: NatsConnection;
  readonly store: GoalStore;
  readonly threads: ThreadStore;
  /** Null when no LLM provider is configured. */
  readonly model: ChatModel | null;
  readonly renderer: PromptRenderer;
  readonly resources: ResourceReader;
  readonly defaultLang: string;
  /** Bound on the deciders' work. */
  readonly timeoutMs: number;
  /** The composite's chance (Math.random by default; tests pin it). */
  readonly random?: () => number;
}

/**
 * Autonomous mode: the composite of the backlog and exploration deciders chooses the next goal; with `submit` it is
 * stored (KV, `queued`) and queued on GOALS exactly like a user's goal, with source `autonomous` and the decider named.
 */
export class NextGoalService {
  constructor(private readonly deps: NextGoalDeps) {}

  async next(payload: unknown): Promise<NextGoalReply> {
    const req = NextGoalRequest.parse(payload);
    const { deps } = this;
    if (!deps.model) throw BusError.of('UNAVAILABLE', 'no LLM provider is configured on this orchestrator');
    const options = {
      model: deps.model,
      renderer: deps.renderer,
      resources: deps.resources,
      lang: req.lang ?? deps.defaultLang,
    };
    const decider = new CompositeGoalDecider({
      backlog: new BacklogGoalDecider(options),
      exploration: new ExplorationGoalDecider(options),
      resources: deps.resources,
      ...(deps.random ? { random: deps.random } : {}),
    });
    const history = req.threadId ? await this.historyOf(req.threadId) : undefined;
    const goal = await decider.nextGoal(req.beliefs ?? [], history, AbortSignal.timeout(deps.timeoutMs));
    if (!goal) return { goal: null };
    const description = goal.description.slice(0, MAX_REQUEST_CHARS);
    const chosenBy = deciderOf(goal);
    if (!req.submit) return NextGoalReply.parse({ goal: { description, decider: chosenBy } });

    const submission = GoalSubmission.parse({
      schemaVersion: SCHEMA_VERSION,
      goalId: `g-${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      ...(req.threadId ? { threadId: req.threadId } : {}),
      goal: description,
      ...(req.lang ? { lang: req.lang } : {}),
      beliefs: req.beliefs ?? [],
      ...(req.limits ? { limits: req.limits } : {}),
      submittedAt: new Date().toISOString(),
      source: 'autonomous',
      decider: chosenBy,
    });
    const { record } = await acceptGoal(deps.nc, deps.store, submission);
    return NextGoalReply.parse({
      goal: {
        description,
        decider: chosenBy,
        goalId: record.goalId,
        threadId: record.threadId,
        status: record.status,
      },
    });
  }

  private async historyOf(threadId: string): Promise<InteractionHistory> {
    const thread = await this.deps.threads.get(threadId);
    return { formatRecent: (n) => formatThreadHistory(thread.history, n) };
  }
}

function deciderOf(goal: Goal): { name: string; context?: string } {
  if (goal.source.kind !== 'autonomous') return { name: 'autonomous' };
  const name = goal.source.decider.slice(0, MAX_LABEL_CHARS) || 'autonomous';
  return goal.source.context ? { name, context: goal.source.context } : { name };
}
