import { z } from 'zod';
import {
  ActionDecision,
  DiscoveryPlan,
  FinalizeArgs,
  PursuitAssessment,
  RefinementDecision,
  WorkspaceState,
  RefinementPlan,
} from './agent-loop';
import { ErrorEnvelope } from './errors';
import {
  CancelRequest,
  GoalLimits,
  GoalOutcome,
  GoalRecord,
  GoalSubmission,
  InteractionAnswer,
  InteractionAnswerAck,
  NextGoalReply,
  NextGoalRequest,
  PendingInteraction,
  StepRecord,
  ThreadRecord,
} from './goals';
import { Aspect, ElementContext, ElementInput, ResourceElement } from './resource-model';
import { ResourceOperation } from './resource-operations';
import {
  ApplyReply,
  ApplyRequest,
  AspectCreateReply,
  AspectCreateRequest,
  AspectRemoveReply,
  AspectRemoveRequest,
  AspectsListReply,
  AspectsListRequest,
  BacklogAddReply,
  BacklogAddRequest,
  BacklogEntry,
  BacklogListReply,
  BacklogListRequest,
  BacklogRemoveReply,
  BacklogRemoveRequest,
  ExportReply,
  ExportRequest,
  FindReply,
  FindRequest,
  ImportReply,
  ImportRequest,
  OperationsListReply,
  OperationsListRequest,
  RelationshipsReply,
  RelationshipsUpdate,
  ResourcesChanged,
  SearchHit,
  SearchReply,
  SearchRequest,
  SegmentData,
  SegmentsReply,
  SegmentsRequest,
  UndoRedoReply,
  UndoRedoRequest,
} from './resources';
import {
  MemoryForgetReply,
  MemoryForgetRequest,
  MemoryItem,
  MemoryRetrieveReply,
  MemoryRetrieveRequest,
  MemoryStoreReply,
  MemoryStoreRequest,
  MemorySummaryReply,
  MemorySummaryRequest,
} from './memory';
import { InteractionReply, InteractionRequest, RuntimeEvent } from './runtime';
import {
  EncodedToolMetadata,
  ToolDescriptor,
  ToolInvocation,
  ToolMetadata,
  ToolOutput,
  ToolClaim,
  ToolResultRecord,
  ToolsChanged,
} from './tools';
import { TraceEvent } from './trace';
import { AssistantCheckpoint, AssistantFollowUp, AssistantThought } from './assistant';
import { AnswerDelta } from './rag';
import { MicroInfoResponse, MicroPingResponse, MicroStatsResponse } from './micro';

/** Every wire and stored message by name (the names are the JSON Schema file names). */
export const CONTRACT_SCHEMAS = {
  ErrorEnvelope,
  // goals
  GoalSubmission,
  GoalLimits,
  GoalRecord,
  GoalOutcome,
  StepRecord,
  PendingInteraction,
  CancelRequest,
  InteractionAnswer,
  InteractionAnswerAck,
  ThreadRecord,
  NextGoalRequest,
  NextGoalReply,
  AnswerDelta,
  // tools
  ToolInvocation,
  ToolOutput,
  ToolMetadata,
  EncodedToolMetadata,
  ToolDescriptor,
  ToolResultRecord,
  ToolClaim,
  ToolsChanged,
  MicroPingResponse,
  MicroInfoResponse,
  MicroStatsResponse,
  // runtime
  RuntimeEvent,
  InteractionRequest,
  InteractionReply,
  // agent loop
  PursuitAssessment,
  DiscoveryPlan,
  RefinementPlan,
  ActionDecision,
  RefinementDecision,
  WorkspaceState,
  FinalizeArgs,
  // the assistant agent kind
  AssistantThought,
  AssistantFollowUp,
  AssistantCheckpoint,
  // trace
  TraceEvent,
  // thread memory
  MemoryItem,
  MemorySummaryRequest,
  MemorySummaryReply,
  MemoryRetrieveRequest,
  MemoryRetrieveReply,
  MemoryStoreRequest,
  MemoryStoreReply,
  MemoryForgetRequest,
  MemoryForgetReply,
  // resources
  Aspect,
  ResourceElement,
  ElementInput,
  ElementContext,
  ResourceOperation,
  FindRequest,
  FindReply,
  SearchRequest,
  SearchHit,
  SearchReply,
  SegmentsRequest,
  SegmentData,
  SegmentsReply,
  ApplyRequest,
  ApplyReply,
  RelationshipsUpdate,
  RelationshipsReply,
  AspectsListRequest,
  AspectsListReply,
  AspectCreateRequest,
  AspectCreateReply,
  AspectRemoveRequest,
  AspectRemoveReply,
  UndoRedoRequest,
  UndoRedoReply,
  OperationsListRequest,
  OperationsListReply,
  BacklogEntry,
  BacklogAddRequest,
  BacklogAddReply,
  BacklogListRequest,
  BacklogListReply,
  BacklogRemoveRequest,
  BacklogRemoveReply,
  ExportRequest,
  ExportReply,
  ImportRequest,
  ImportReply,
  ResourcesChanged,
} as const satisfies Record<string, z.ZodType>;
export type ContractName = keyof typeof CONTRACT_SCHEMAS;

export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema (draft 2020-12) of every contract, by name, for third parties. Describes the *input* side (what a
 * sender must produce); recursive schemas use `$ref`; refinements (XOR fields, cross-field checks) are not expressible
 * and only enforced by the zod schemas.
 */
export function exportJsonSchemas(): Record<ContractName, JsonSchema> {
  const out = {} as Record<ContractName, JsonSchema>;
  for (const name of Object.keys(CONTRACT_SCHEMAS) as ContractName[]) {
    const schema = z.toJSONSchema(CONTRACT_SCHEMAS[name], {
      target: 'draft-2020-12',
      io: 'input',
      unrepresentable: 'any',
      cycles: 'ref',
      reused: 'inline',
    }) as JsonSchema;
    out[name] = { ...schema, title: name };
  }
  return out;
}
