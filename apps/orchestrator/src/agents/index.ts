// Agent kinds: the port the durability code pursues a goal through, the registry of kinds, and the kinds themselves.
export { AgentRegistry, ResumingDeterminer, executeWith } from './agent-kind';
export type {
  AgentCheckpoints,
  AgentContext,
  AgentKindDefinition,
  AgentLimits,
  AgentResume,
  AgentRun,
} from './agent-kind';
export { NovelragAgent, defaultAgents } from './novelrag-agent';
export type { NovelragAgentOptions, Planner } from './novelrag-agent';
export { AssistantAgent, DEFAULT_ASSISTANT_SETTINGS } from './assistant';
export type { AssistantSettings } from './assistant';
export { NO_DELTAS, natsAnswerDeltas, streamAnswer } from './answer-stream';
export type { AnswerDeltaSink, AnswerStream } from './answer-stream';
export { DEFAULT_RAG_MAX_TOOL_CALLS, RagAgent } from './rag';
export type { RagAgentDeps } from './rag';
