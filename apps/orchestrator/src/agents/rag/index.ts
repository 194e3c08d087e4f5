export { RagAgent, natsAnswerDeltas } from './rag-agent';
export { NO_DELTAS } from './rag-answer';
export type { AnswerDeltaSink, RagAnswer } from './rag-answer';
export { DEFAULT_RAG_MAX_TOOL_CALLS } from './rag-options';
export type { RagAgentDeps } from './rag-options';
