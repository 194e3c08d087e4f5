// The `rag` agent kind: a question about the repository, answered from what the retrieval tools find, with verified
// citations, streamed as it is written (seed design: tools + memory + XML answer prompt + quote verification). The
// retrieval tools are ordinary bus tools run through the pursuit's executor, one per step, so each call is
// checkpointed, runs at most once and is cancelled like any tool call.
import { type AgentContext, type AgentKindDefinition, type AgentRun, executeWith } from '../agent-kind';
import { RagDeterminer } from './rag-determiner';
import type { RagAgentDeps } from './rag-options';

export class RagAgent implements AgentKindDefinition {
  /** The request is the question itself: no translation into a goal statement. */
  readonly takesRequestAsGoal = true;

  constructor(private readonly deps: RagAgentDeps) {}

  start(ctx: AgentContext): AgentRun {
    const determiner = new RagDeterminer(ctx, this.deps);
    return {
      pursue: () => executeWith(ctx, determiner),
      checkpointData: () => ({}),
      workspace: () => undefined,
      toolWorkspace: () => undefined,
      outcomeExtras: () => {
        const ending = determiner.ending;
        if (!ending) return {};
        return { citations: ending.answer.citations, ...(ending.limited ? { limited: true } : {}) };
      },
    };
  }
}
