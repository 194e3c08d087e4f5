// The `novelrag` agent kind (the default): the four-phase ActionDetermineLoop (assess, discover, refine, decide) as the
// determiner of a GoalExecutor. It resumes from the checkpoint's steps and the last assessment it stored.
import type { ActionDeterminer } from '@novelrag/agenturn';
import { DEFAULT_AGENT_KIND } from '@novelrag/contracts';
import { ActionDetermineLoop, type ActionDetermineLoopOptions } from '../loop';
import {
  type AgentContext,
  type AgentKindDefinition,
  AgentRegistry,
  type AgentRun,
  executeWith,
} from './agent-kind';
import { AssistantAgent, type AssistantSettings } from './assistant';
import { NO_DELTAS } from './answer-stream';
import { DEFAULT_RAG_MAX_TOOL_CALLS, RagAgent, type RagAgentDeps } from './rag';

/** What the kind needs from its planner: decisions plus the state it checkpoints. */
export type Planner = ActionDeterminer &
  Pick<ActionDetermineLoop, 'workspace' | 'lastAssessment' | 'toolWorkspace'>;

export interface NovelragAgentOptions {
  /** The planner of a pursuit (default: the ActionDetermineLoop). Tests may script it. */
  readonly planner?: (options: ActionDetermineLoopOptions) => Planner;
  /** Most independent tool calls one step may run at the same time (default 1). */
  readonly parallelToolCalls?: number;
}

export class NovelragAgent implements AgentKindDefinition {
  constructor(private readonly options: NovelragAgentOptions = {}) {}

  start(ctx: AgentContext): AgentRun {
    const assessment = ctx.resume.record.assessment;
    const loopOptions: ActionDetermineLoopOptions = {
      model: ctx.model,
      renderer: ctx.renderer,
      resources: ctx.resources,
      lang: ctx.lang,
      observer: ctx.trace,
      maxIterations: ctx.limits.maxIterations,
      minIterations: ctx.limits.minIterations,
      workspace: ctx.workspace,
      ...(assessment ? { previousAssessment: assessment } : {}),
      history: ctx.historyText,
      findTools: ctx.findTools,
      ...(this.options.parallelToolCalls ? { parallelToolCalls: this.options.parallelToolCalls } : {}),
    };
    const loop = this.options.planner
      ? this.options.planner(loopOptions)
      : new ActionDetermineLoop(loopOptions);
    return {
      pursue: () => executeWith(ctx, loop),
      checkpointData: () => {
        const last = loop.lastAssessment();
        return last ? { assessment: last } : {};
      },
      workspace: () => loop.workspace(),
      toolWorkspace: () => loop.toolWorkspace(),
    };
  }
}

/** The kinds an orchestrator runs: `novelrag` (the default), `assistant` and `rag` (questions answered with citations). */
export function defaultAgents(
  options: NovelragAgentOptions = {},
  kinds: { readonly assistant?: Partial<AssistantSettings>; readonly rag?: Partial<RagAgentDeps> } = {},
): AgentRegistry {
  return new AgentRegistry()
    .register(DEFAULT_AGENT_KIND, new NovelragAgent(options))
    .register('assistant', new AssistantAgent(kinds.assistant ?? {}))
    .register(
      'rag',
      new RagAgent({
        maxToolCalls: DEFAULT_RAG_MAX_TOOL_CALLS,
        citationPolicy: 'strip',
        memory: null,
        deltas: NO_DELTAS,
        ...kinds.rag,
      }),
    );
}
