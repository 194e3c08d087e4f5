// Test doubles for @novelrag/agenturn. For tests and clearly labelled offline demos only.
export { ScriptedChatModel, ScriptMismatchError, streamingPieces } from './scripted-chat-model';
export type { ScriptEntry, ScriptedCall, ScriptedCallKind, StreamScript } from './scripted-chat-model';
export { RecordingExecutionContext } from './recording-execution-context';
export type {
  LogLevel,
  RecordedEvent,
  RecordingExecutionContextOptions,
} from './recording-execution-context';
export { FakeTool, fakeTool } from './fake-tool';
export type { FakeToolCall, FakeToolOptions } from './fake-tool';
export { ManualClock } from './manual-clock';
export { deferred } from './deferred';
export type { Deferred } from './deferred';
export {
  describeToolExecutorContract,
  contractTools,
  CONTRACT_SHORT_TIMEOUT_MS,
  CONTRACT_TIMEOUT_MS,
} from './tool-executor-contract';
export type {
  ContractTools,
  ToolExecutorContractFactory,
  ToolExecutorHarness,
} from './tool-executor-contract';
export { InMemoryMemory } from './in-memory-memory';
