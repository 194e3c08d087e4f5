// errors
export { AGENTURN_ERROR_CODES, ERROR_FAULTS, isAgenturnErrorCode } from './errors/error-codes';
export type { AgenturnErrorCode, ErrorFault } from './errors/error-codes';
export { AgenturnError } from './errors/agenturn-error';
export type { AgenturnErrorOptions } from './errors/agenturn-error';
export {
  BudgetExhaustedError,
  CancelledError,
  ConfigError,
  ConflictError,
  DeadlineExceededError,
  NotFoundError,
  ToolNotFoundError,
  ValidationError,
} from './errors/errors';
export type { BudgetLimit } from './errors/errors';
export { ModelOutputError, ModelTimeoutError, ModelUnavailableError } from './errors/model-errors';
export type { ModelOutputErrorOptions, OutputIssue } from './errors/model-errors';
export { TemplateNotFoundError, TemplateRenderError } from './errors/template-errors';
export { isAgenturnError, toErrorInfo } from './errors/error-info';
export type { CodedError, ErrorInfo } from './errors/error-info';

// model ports
export type {
  ChatCallOptions,
  ChatMessage,
  ChatModel,
  ChatResult,
  ChatStream,
  ChatUsage,
  StreamCallOptions,
  StructuredCallOptions,
  ToolCallOptions,
  ToolCallReply,
  ToolCallRequest,
  ToolChoice,
  ToolDefinition,
} from './model/chat-model';
export { chatStream } from './model/chat-stream';
export { spentUsageOf, withSpentUsage } from './model/spent-usage';
export type { PushText, StreamProducer } from './model/chat-stream';
export type { PromptRenderer } from './model/prompt-renderer';

// goals
export { autonomousGoal, describeGoal, describeGoalSource, userGoal } from './goal/goal';
export type { Goal, GoalSource } from './goal/goal';
export type { GoalTranslator } from './goal/goal-translator';
export type { GoalDecider } from './goal/goal-decider';
export type { InteractionHistory } from './goal/interaction-history';

// pursuit
export { isResolution, operationPlan, resolution } from './pursuit/step';
export type {
  Decision,
  OperationOutcome,
  OperationPlan,
  Resolution,
  ResolutionStatus,
  StepStatus,
} from './pursuit/step';
export { pursuitStatusOf } from './pursuit/pursuit';
export type { PursuitLimit, PursuitOutcome, PursuitProgress, PursuitStatus } from './pursuit/pursuit';
export { formatSteps, summarizeOutcome, truncateText } from './pursuit/summarize';
export type { SummarizeOptions } from './pursuit/summarize';
export { PursuitAssessment } from './pursuit/assessment';
export type { AssessProgressOptions, PursuitAssessor } from './pursuit/assessment';
export type { ActionDeterminer, DetermineActionInput } from './pursuit/action-determiner';

// tools
export { isToolOutput, toolError, toolResult } from './tool/tool-output';
export type { ToolOutput } from './tool/tool-output';
export type { SchematicTool, ToolHints } from './tool/schematic-tool';
export { ToolCatalog } from './tool/tool-catalog';
export type { ToolCatalogEntry } from './tool/tool-catalog';
export type { ToolExecutor } from './tool/tool-executor';
export { InProcessToolExecutor } from './tool/in-process-tool-executor';
export { paramProblem } from './tool/param-check';
export type { InProcessToolExecutorOptions } from './tool/in-process-tool-executor';

// memory (thread-scoped: session summary, episodic and semantic memories)
export type { MemoryItem, MemoryKind, MemoryPort, RetrieveOptions, StoredInteraction } from './memory/memory';

// execution
export { systemClock } from './execution/clock';
export type { Clock } from './execution/clock';
export type { ExecutionContext, InteractionOptions } from './execution/execution-context';
export { DEFAULT_PURSUIT_LIMITS, GoalExecutor } from './execution/goal-executor';
export type {
  GoalExecutorHooks,
  GoalExecutorOptions,
  HandleGoalOptions,
  PursuitLimits,
} from './execution/goal-executor';
export { RequestHandler } from './execution/request-handler';
export type { HandleRequestOptions } from './execution/request-handler';
export { AutonomousAgent } from './execution/autonomous-agent';
export type { PursueNextGoalOptions } from './execution/autonomous-agent';

// retrieval-augmented answers
export { parseCiteTags } from './rag/cite-tags';
export type { CiteTag } from './rag/cite-tags';
export { UNVERIFIED_CITATION_POLICIES, verifyCitations } from './rag/citations';
export type {
  Citation,
  CitationProblem,
  SourceDocument,
  UnverifiedCitationPolicy,
  VerifiedAnswer,
} from './rag/citations';
export { MIN_QUOTE_LENGTH, normalizeForQuote, quoteAppearsIn } from './rag/quote-match';
