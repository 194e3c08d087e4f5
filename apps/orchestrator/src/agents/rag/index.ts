export { RagAgent } from './rag-agent';
export type { RagAnswer } from './rag-answer';
export { DEFAULT_RAG_MAX_TOOL_CALLS } from './rag-options';
export type { RagAgentDeps } from './rag-options';
