import { z } from 'zod';

/**
 * Every NATS subject, stream, bucket and micro-service name of the system. No string-literal subject may appear
 * outside this file. Subjects are dot-separated tokens under the `novelrag.` prefix; ids embedded in subjects must be
 * valid subject tokens (see `SubjectToken`): the builders throw `InvalidSubjectTokenError` otherwise, because a dot
 * or wildcard smuggled into a subject would address other goals.
 */
export const SUBJECT_PREFIX = 'novelrag';

/** The four services (also their NATS connection names and health subjects). */
export const SERVICE_NAMES = ['gateway', 'orchestrator', 'tool-runner', 'resource-service'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const MAX_SUBJECT_TOKEN_CHARS = 128;

/** The characters of one subject token (what `SubjectToken` matches, unanchored: subject patterns build on it). */
export const SUBJECT_TOKEN_CHARS = '[^\\s.*>\\p{Cc}]{1,128}';

/** One subject token: no dots, whitespace, control characters or wildcards (`*`, `>`), at most 128 characters. */
export const SubjectToken = z
  .string()
  .regex(
    new RegExp(`^${SUBJECT_TOKEN_CHARS}$`, 'u'),
    'must be 1-128 characters without dots, whitespace, "*" or ">"',
  );
export type SubjectToken = z.infer<typeof SubjectToken>;

export function isSubjectToken(value: unknown): value is SubjectToken {
  return SubjectToken.safeParse(value).success;
}

/** Thrown by the subject builders when an embedded id is not a valid subject token. */
export class InvalidSubjectTokenError extends Error {
  readonly code = 'VALIDATION_FAILED' as const;
  constructor(
    readonly what: string,
    readonly value: unknown,
  ) {
    super(`${what} is not a valid subject token: ${JSON.stringify(value)}`);
    this.name = 'InvalidSubjectTokenError';
  }
}

function token(what: string, value: string): string {
  if (!isSubjectToken(value)) throw new InvalidSubjectTokenError(what, value);
  return value;
}

function service(name: ServiceName): ServiceName {
  if (!(SERVICE_NAMES as readonly string[]).includes(name))
    throw new InvalidSubjectTokenError('service name', name);
  return name;
}

const GOALS = `${SUBJECT_PREFIX}.goals`;
const TOOLS = `${SUBJECT_PREFIX}.tools`;
const RESOURCES = `${SUBJECT_PREFIX}.resources`;
const TRACE = `${SUBJECT_PREFIX}.trace`;
const MEMORY = `${SUBJECT_PREFIX}.memory`;

/**
 * Request/reply subjects of the resource service (micro service `novelrag-resources`), known by one name:
 * `Subjects.resources` (the ResourceService port of `@novelrag/resource-client` has one method per key).
 */
const ResourceSubjects = {
  find: `${RESOURCES}.find`,
  search: `${RESOURCES}.search`,
  segments: `${RESOURCES}.segments`,
  apply: `${RESOURCES}.apply`,
  relationships: `${RESOURCES}.relationships`,
  aspectsList: `${RESOURCES}.aspects.list`,
  aspectsCreate: `${RESOURCES}.aspects.create`,
  aspectsRemove: `${RESOURCES}.aspects.remove`,
  undo: `${RESOURCES}.undo`,
  redo: `${RESOURCES}.redo`,
  operations: `${RESOURCES}.operations`,
  backlogAdd: `${RESOURCES}.backlog.add`,
  backlogList: `${RESOURCES}.backlog.list`,
  backlogRemove: `${RESOURCES}.backlog.remove`,
  import: `${RESOURCES}.import`,
  export: `${RESOURCES}.export`,
} as const;
export type ResourceSubject = (typeof ResourceSubjects)[keyof typeof ResourceSubjects];

/**
 * Request/reply subjects of the thread memory the resource-service keeps (`memory.ts` contracts), known by one name:
 * `Subjects.memory` (one key per `MemoryPort` method).
 */
const MemorySubjects = {
  summary: `${MEMORY}.summary`,
  retrieve: `${MEMORY}.retrieve`,
  store: `${MEMORY}.store`,
  forget: `${MEMORY}.forget`,
} as const;
export type MemorySubject = (typeof MemorySubjects)[keyof typeof MemorySubjects];

export const Subjects = {
  /** Request/reply health probe answered by one instance of the service (micro endpoint, queue group). */
  health: (name: ServiceName) => `${SUBJECT_PREFIX}.health.${service(name)}`,
  /** Health probe of one specific instance (its id is a subject token). */
  instanceHealth: (name: ServiceName, instanceId: string) =>
    `${SUBJECT_PREFIX}.health.${service(name)}.${token('instance id', instanceId)}`,

  /** JetStream: accepted goals (`GoalSubmission`), captured by the `GOALS` work-queue stream. */
  goalSubmitted: `${GOALS}.submitted`,
  /** Core event (`CancelRequest`); the KV flag `cancelRequested` makes it durable. */
  goalCancel: (goalId: string) => `${GOALS}.${token('goal id', goalId)}.cancel`,
  /** Any goal's cancel events (orchestrator subscription). */
  goalCancelAll: `${GOALS}.*.cancel`,
  /** Tool → orchestrator events (`RuntimeEvent`). */
  goalRuntime: (goalId: string) => `${GOALS}.${token('goal id', goalId)}.runtime`,
  goalRuntimeAll: `${GOALS}.*.runtime`,
  /** Tool → orchestrator request/reply (`InteractionRequest` → `Reply<InteractionReply>`). */
  goalInteract: (goalId: string) => `${GOALS}.${token('goal id', goalId)}.interact`,
  goalInteractAll: `${GOALS}.*.interact`,
  /** Gateway → orchestrator request/reply (`InteractionAnswer` → `Reply<{accepted: true}>`). */
  interactionAnswer: (goalId: string, interactionId: string) =>
    `${GOALS}.${token('goal id', goalId)}.interactions.${token('interaction id', interactionId)}.answer`,
  interactionAnswerAll: `${GOALS}.*.interactions.*.answer`,
  /**
   * Core event (`AnswerDelta`): the next piece of a goal's answer while it is written, for live subscribers only (no
   * stream keeps it; the whole answer is in the goal's `rag.answer` trace event).
   */
  goalAnswer: (goalId: string) => `${GOALS}.${token('goal id', goalId)}.answer`,

  /** Request/reply to a tool endpoint (`ToolInvocation` → `ToolOutput`). */
  toolInvoke: (tool: string) => `${TOOLS}.${token('tool name', tool)}.invoke`,
  /** Every tool's invoke subject (discovery filters, permissions). */
  toolInvokeAll: `${TOOLS}.*.invoke`,
  /** Event (`ToolsChanged`) from a tool host that started or stopped serving tools (triggers rediscovery). */
  toolsChanged: `${TOOLS}.changed`,

  /**
   * Request/reply (`NextGoalRequest` → `Reply<NextGoalReply>`): an orchestrator's autonomous deciders choose the next
   * goal (and submit it when asked). Outside `novelrag.goals.*` so it is never mistaken for a goal id.
   */
  autonomousNext: `${SUBJECT_PREFIX}.autonomous.next`,

  resources: ResourceSubjects,
  /** Thread memory (request/reply, answered by the resource-service). */
  memory: MemorySubjects,
  /** Event (`ResourcesChanged`) after every committed write. */
  resourcesChanged: `${RESOURCES}.changed`,

  /** Trace event of one goal (`TraceEvent`); `kind` may contain dots (`goal.accepted`). */
  trace: (goalId: string, kind: string) => {
    const tokens = kind.split('.');
    tokens.forEach((t) => token('trace kind', t));
    return `${TRACE}.${token('goal id', goalId)}.${kind}`;
  },
  /** All trace events of one goal (SSE replay filter). */
  traceOfGoal: (goalId: string) => `${TRACE}.${token('goal id', goalId)}.>`,
  traceAll: `${TRACE}.>`,
} as const;

/** Extracts the tool name from `novelrag.tools.<tool>.invoke`, or null when the subject is not a tool invoke subject. */
export function toolFromInvokeSubject(subject: string): string | null {
  const parts = subject.split('.');
  if (parts.length !== 4 || `${parts[0]}.${parts[1]}` !== TOOLS || parts[3] !== 'invoke') return null;
  const tool = parts[2];
  return tool !== undefined && isSubjectToken(tool) ? tool : null;
}

/** Extracts the goal id from any `novelrag.goals.<id>.…` or `novelrag.trace.<id>.…` subject, or null. */
export function goalIdFromSubject(subject: string): string | null {
  const parts = subject.split('.');
  if (parts[0] !== SUBJECT_PREFIX || (parts[1] !== 'goals' && parts[1] !== 'trace')) return null;
  const id = parts[2];
  return id !== undefined && id !== 'submitted' && isSubjectToken(id) ? id : null;
}

/** JetStream streams. Durations in ms (convert to ns for the server config). */
export const Streams = {
  /** Work queue of accepted goals; `Nats-Msg-Id` = goal id makes submission idempotent within the window. */
  goals: {
    name: 'GOALS',
    subjects: [Subjects.goalSubmitted],
    retention: 'workqueue',
    duplicateWindowMs: 2 * 60_000,
    /** Durable consumer of the orchestrators (all instances pull from the same one). */
    consumer: 'orchestrator',
  },
  /** Every trace event, bounded by age and size, replayable for SSE `Last-Event-ID`. */
  trace: {
    name: 'TRACE',
    subjects: [Subjects.traceAll],
    retention: 'limits',
    maxAgeMs: 7 * 24 * 60 * 60_000,
    maxBytes: 1024 * 1024 * 1024,
  },
} as const;

/** JetStream KV buckets. */
export const Buckets = {
  /** One key per goal (`GoalRecord`), key = goal id; updates use the revision (CAS). */
  goals: 'goals',
  /**
   * Tool results by invocation id (`ToolOutput`), so a retried invocation is served, not re-run; beside each, the
   * invocation's notes (`<invocationId>.note.<name>`: what a write tool decided before it acted, e.g. the operations
   * the human confirmed), so a retry after a runner crash applies that same write. Bucket-wide TTL.
   */
  toolResults: 'tool-results',
  /** One key per thread (`ThreadRecord`): shared workspace and history of the thread's goals. */
  threads: 'threads',
  /**
   * One key per thread (key = thread id): which orchestrator may run the thread's next goal, and who waits (in stream
   * order). Private to the orchestrators; updates use the revision (CAS).
   */
  threadLeases: 'thread-leases',
  /**
   * One key per API principal (key = the principal's short hash): the requests counted in its current rate-limit
   * window, shared by every gateway instance; updates use the revision (CAS). Private to the gateways.
   */
  rateLimits: 'rate-limits',
} as const;

export const BucketTtls = {
  toolResultsMs: 24 * 60 * 60_000,
} as const;

/** KV keys (KV keys allow `[-/_=.a-zA-Z0-9]`; ids are validated subject tokens of a narrower alphabet). */
export const KvKeys = {
  goal: (goalId: string) => token('goal id', goalId),
  toolResult: (invocationId: string) => token('invocation id', invocationId),
  /** A note of an invocation (name: 1-64 of `A-Z a-z 0-9 _ -`); never equal to an invocation's own key (no dot). */
  toolNote: (invocationId: string, name: string) => {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new InvalidSubjectTokenError('note name', name);
    return `${token('invocation id', invocationId)}.note.${name}`;
  },
  thread: (threadId: string) => token('thread id', threadId),
} as const;

/** NATS micro service names (`A-Z a-z 0-9 - _` only). */
export const MicroServiceNames = {
  resources: 'novelrag-resources',
  /** The built-in tool runner: one service, one endpoint per tool. */
  tools: 'novelrag-tools',
  /** Name for a third-party tool service: `novelrag-tools-<suffix>`. */
  toolService: (suffix: string) => {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(suffix))
      throw new InvalidSubjectTokenError('tool service suffix', suffix);
    return `novelrag-tools-${suffix}`;
  },
} as const;

/** The verbs of the NATS service protocol every service answers (ADR-32); the platform asks `PING` and `INFO`. */
export const MICRO_VERBS = ['PING', 'INFO', 'STATS'] as const;
export type MicroVerb = (typeof MICRO_VERBS)[number];

/**
 * Subjects of the NATS service protocol: `$SRV.<VERB>` (every service answers), `$SRV.<VERB>.<name>` (every
 * instance of one service), `$SRV.<VERB>.<name>.<id>` (one instance).
 */
export const MicroSubjects = {
  /** Every service answers (discovery is a scatter-gather on `$SRV.INFO`). */
  all: (verb: MicroVerb) => `$SRV.${verb}`,
  /** Every instance of one service (a lost call's liveness probe is `$SRV.PING.<name>`). */
  service: (verb: MicroVerb, name: string) => `$SRV.${verb}.${token('service name', name)}`,
  /** One instance of one service. */
  instance: (verb: MicroVerb, name: string, id: string) =>
    `$SRV.${verb}.${token('service name', name)}.${token('instance id', id)}`,
} as const;

/** Whether a micro service (from `$SRV.INFO`) hosts NovelRAG tools: `novelrag-tools` or `novelrag-tools-<suffix>`. */
export function isToolServiceName(name: string): boolean {
  return /^novelrag-tools(?:-[A-Za-z0-9_-]+)?$/.test(name);
}

/** Queue group of tool endpoints, so one runner answers each invocation. */
export const TOOL_QUEUE_GROUP = 'novelrag-tools';

/** Headers used on the bus. */
export const BusHeaders = {
  /** JetStream de-duplication id. */
  msgId: 'Nats-Msg-Id',
  /** Micro protocol error headers (set on error replies). */
  serviceError: 'Nats-Service-Error',
  serviceErrorCode: 'Nats-Service-Error-Code',
} as const;
