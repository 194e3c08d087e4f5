// The `assistant` agent kind (seed 003's AiAgent): plans, runs independent tool tasks in parallel, answers with
// suggested next inputs and keeps the thread's long-term memory through the memory port.
import type { JsonObject } from '@novelrag/contracts';
import type { AgentContext, AgentKindDefinition, AgentRun } from '../agent-kind';
import { AssistantRun, type AssistantSettings } from './assistant-run';

export const DEFAULT_ASSISTANT_SETTINGS: AssistantSettings = { maxRounds: 4, maxParallelTools: 4 };

export class AssistantAgent implements AgentKindDefinition {
  private readonly settings: AssistantSettings;

  constructor(settings: Partial<AssistantSettings> = {}) {
    this.settings = { ...DEFAULT_ASSISTANT_SETTINGS, ...settings };
  }

  start(ctx: AgentContext): AgentRun {
    const run = new AssistantRun(ctx, this.settings);
    return {
      pursue: () => run.pursue(),
      checkpointData: () => ({ agentState: run.state as unknown as JsonObject }),
      workspace: () => undefined,
      toolWorkspace: () => undefined,
    };
  }
}
