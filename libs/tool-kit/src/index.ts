export {
  defineTool,
  type HostedTool,
  type ToolContext,
  type ToolModelUsage,
  type ToolSpec,
} from './hosted-tool';
export { ToolHost, type ToolHostOptions } from './tool-host';
export { RemoteExecutionContext } from './remote-execution-context';
export { type AskTiming, DEFAULT_ASK_TIMING } from './interaction-ask';
export { compileParamValidator } from './param-validator';
export {
  KvToolResultStore,
  ToolClaim,
  classifyStored,
  type StoredState,
  type ToolResultStore,
  type ToolResultStoreOptions,
} from './result-store';
export { type InvocationNotes, KvInvocationNotes, type ToolNotes, notesOf } from './invocation-notes';
export { IdempotentExecution, needsAtMostOnce, type IdempotencyOptions } from './idempotent-execution';
export { type HostLogger, silentLogger } from './logger';
export { MAX_ERROR_DETAILS_CHARS, MAX_ERROR_MESSAGE_CHARS } from './outputs';
