// common building blocks
export {
  AspectName,
  ElementId,
  EpochMs,
  GoalId,
  IdempotencyKey,
  InteractionId,
  InvocationId,
  JsonObject,
  JsonValue,
  Label,
  Lang,
  MAX_ID_CHARS,
  MAX_LABEL_CHARS,
  MAX_MESSAGE_BYTES,
  MAX_TEXT_CHARS,
  MAX_URI_CHARS,
  ResourceSegment,
  ResourceUri,
  SCHEMA_VERSION,
  SchemaVersion,
  Text,
  ThreadId,
  Timestamp,
  TokenUsage,
  ToolName,
  isResourceUri,
} from './common';
export type { JsonPrimitive } from './common';

// errors and replies
export {
  ERROR_CODE_INFO,
  ErrorCode,
  ErrorEnvelope,
  describeIssues,
  errorEnvelope,
  errorReply,
  formatPath,
  isErrorEnvelope,
  okReply,
  replyOf,
} from './errors';
export type { ErrorCodeInfo, Reply } from './errors';

// tool identity: who may serve a tool name, where its results are recorded
export {
  BUILTIN_TOOLS,
  parseToolOwners,
  toolOwnershipProblem,
  toolResultsBucket,
  type ToolOwners,
} from './tool-ownership';

// subjects, streams, buckets, service names
export {
  BucketTtls,
  Buckets,
  BusHeaders,
  InvalidSubjectTokenError,
  KvKeys,
  MAX_SUBJECT_TOKEN_CHARS,
  MICRO_VERBS,
  MicroServiceNames,
  MicroSubjects,
  SERVICE_NAMES,
  SUBJECT_PREFIX,
  Streams,
  SubjectToken,
  Subjects,
  TOOL_QUEUE_GROUP,
  goalIdFromSubject,
  isSubjectToken,
  isToolServiceName,
  toolFromInvokeSubject,
} from './subjects';
export type { MemorySubject, MicroVerb, ResourceSubject, ServiceName } from './subjects';

// the NATS service protocol's answers (discovery, liveness)
export { MicroEndpointInfo, MicroInfoResponse, MicroPingResponse, MicroStatsResponse } from './micro';

// goals
export {
  GOAL_TRANSITIONS,
  GoalStatus,
  TERMINAL_GOAL_STATUSES,
  TerminalGoalStatus,
  canTransition,
  isTerminalStatus,
} from './goal-status';
export {
  AgentKind,
  Beliefs,
  CancelRequest,
  DEFAULT_AGENT_KIND,
  GoalLimits,
  GoalOutcome,
  GoalRecord,
  GoalSource,
  GoalSubmission,
  InFlightStep,
  InteractionAnswer,
  InteractionAnswerAck,
  InteractionAnswerBody,
  LimitHit,
  MAX_BELIEFS,
  MAX_BELIEF_CHARS,
  MAX_REQUEST_CHARS,
  NextGoalReply,
  NextGoalRequest,
  PendingInteraction,
  StepOutcome,
  StepPlan,
  StepRecord,
  StepStatus,
  MAX_THREAD_HISTORY,
  ThreadHistoryEntry,
  ThreadRecord,
} from './goals';
export { GoalPhase, GoalSummary, GoalSummaryPage, SUMMARY_TITLE_CHARS, summarizeGoal } from './goal-summary';
export {
  DiscoveredTool,
  EndpointStats,
  GoalPage,
  HealthReport,
  PublicGoal,
  ServiceInstanceStats,
  ServicesReply,
  ToolCatalogue,
} from './public-api';
export {
  BacklogAddBody,
  ErrorBody,
  GoalAccepted,
  LimitQuery,
  ListGoalsQuery,
  MemoryRemoved,
  NextGoalBody,
  NextGoalResult,
  SubmitGoalBody,
} from './http-requests';

// agent loop payloads (also structured-output schemas)
export {
  ActionDecision,
  DiscoveryPlan,
  FinalizeArgs,
  FinalizeStatus,
  PursuitAssessment,
  ExplorationHints,
  RefinementApproval,
  RefinementDecision,
  RefinementPlan,
  ResolutionStatus,
  ResourceProperty,
  SearchHistoryItem,
  WorkspaceState,
  discoveryNeedsRefinement,
  emptyWorkspace,
} from './agent-loop';

// tools
export {
  EncodedToolMetadata,
  INPUT_SCHEMA_DIALECTS,
  MAX_TOOL_RESULT_CHARS,
  Subject,
  TOOL_METADATA_DEFAULTS,
  TOOL_METADATA_KEYS,
  ToolDescriptor,
  ToolInvocation,
  ToolMetadata,
  ToolMetadataError,
  ToolOutput,
  ToolClaim,
  ToolResultRecord,
  ToolWorkspace,
  ToolsChanged,
  decodeToolMetadata,
  encodeToolMetadata,
  jsonParamsParser,
  safeParseToolInvocation,
} from './tools';

// runtime calls from tools
export {
  BacklogPriority,
  DEFAULT_BACKLOG_PRIORITY,
  InteractionReply,
  InteractionRequest,
  MAX_INTERACTION_TIMEOUT_MS,
  ModelCallUsage,
  RuntimeEvent,
  RuntimeLogLevel,
} from './runtime';
export type { RuntimeEventKind } from './runtime';

// resources
export {
  Aspect,
  ChildIds,
  ChildrenKey,
  ElementContext,
  ElementInput,
  RESERVED_PROPERTY_NAMES,
  Relationships,
  ResourceElement,
} from './resource-model';
export {
  AspectCreateOperation,
  AspectRemoveOperation,
  MAX_OPERATIONS_PER_APPLY,
  PropertyOperation,
  RelationshipOperation,
  ResourceOperation,
  SpliceLocation,
  SpliceOperation,
} from './resource-operations';
export type { ResourceOperationType } from './resource-operations';
export {
  ApplyReply,
  ApplyRequest,
  AspectCreateReply,
  AspectCreateRequest,
  AspectDump,
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
  DEFAULT_SEARCH_LIMIT,
  ExportReply,
  ExportRequest,
  FindReply,
  FindRequest,
  ImportReply,
  ImportRequest,
  MAX_SEARCH_LIMIT,
  OperationHistoryEntry,
  OperationsListReply,
  OperationsListRequest,
  RelationshipsReply,
  RelationshipsUpdate,
  ResourceChangeCause,
  ResourcesChanged,
  SearchHit,
  SearchReply,
  SearchRequest,
  SegmentData,
  SegmentSpec,
  SegmentsReply,
  SegmentsRequest,
  UndoRedoReply,
  UndoRedoRequest,
  WriteOrigin,
} from './resources';

// the assistant agent kind
export {
  AssistantAction,
  AssistantCheckpoint,
  AssistantFollowUp,
  AssistantStateName,
  AssistantTask,
  AssistantTaskStatus,
  AssistantTaskView,
  AssistantThought,
} from './assistant';
// thread memory
export {
  DEFAULT_MEMORY_LIMIT,
  MAX_MEMORY_ANSWER_CHARS,
  MAX_MEMORY_FACT_CHARS,
  MAX_MEMORY_FACTS,
  MAX_MEMORY_LIMIT,
  MAX_MEMORY_QUERY_CHARS,
  MAX_MEMORY_QUESTION_CHARS,
  MAX_MEMORY_SUMMARY_CHARS,
  MAX_MEMORY_TEXT_CHARS,
  MemoryForgetReply,
  MemoryForgetRequest,
  MemoryId,
  MemoryItem,
  MemoryKind,
  MemoryRetrieveReply,
  MemoryRetrieveRequest,
  MemoryStoreReply,
  MemoryStoreRequest,
  MemorySummaryReply,
  MemorySummaryRequest,
} from './memory';

// trace
export {
  AnalysisVerdictEvent,
  AssistantOutputEvent,
  AssistantPlanEvent,
  AssistantStateEvent,
  AssistantToolsEvent,
  AssessmentEvent,
  ContextUpdatedEvent,
  DecisionEvent,
  DiscoveryPlanEvent,
  FINAL_TRACE_KINDS,
  GoalAcceptedEvent,
  GoalCancelledEvent,
  GoalCompletedEvent,
  GoalFailedEvent,
  GoalAbandonedEvent,
  GoalStartedEvent,
  GoalStatusChangedEvent,
  InteractionAnsweredEvent,
  InteractionRequestedEvent,
  InteractionTimedOutEvent,
  LimitHitEvent,
  LlmCallEvent,
  OperationDispatchedEvent,
  OperationOutcomeEvent,
  RagAnswerEvent,
  RagGradeEvent,
  RagRetrieveEvent,
  RagRewriteEvent,
  RagRouteEvent,
  RefinementPlanEvent,
  ResolutionEvent,
  RuntimeTraceEvent,
  TRACE_KINDS,
  TraceEvent,
  TraceKind,
} from './trace';
export type { TraceEventOf } from './trace';
export { SpanId, TraceId, Traceparent } from './telemetry';

// retrieval-augmented answers (the `rag` agent kind)
export { AnswerCitation, AnswerDelta, CitationPolicy, CitationProblem, RagPath, TracedDocument } from './rag';

// JSON Schema export
export { CONTRACT_SCHEMAS, exportJsonSchemas } from './json-schema';
export type { ContractName, JsonSchema } from './json-schema';
