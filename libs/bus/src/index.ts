export {
  connectBus,
  busTlsFromEnv,
  BusConnectError,
  type BusConnectOptions,
  type BusTlsOptions,
} from './connect';
export { BaseEnv, EnvError, parseEnv, defaultInstanceId } from './config';
export { JsonLogger, ContextLogger, LOG_LEVELS, type LogLevel, type LogFields } from './logger';
export { BusError, toErrorEnvelope, summarizeZodError } from './errors';
export { busRequest, mapTransportError, raceAbort, transportError, type BusRequestOptions } from './request';
export {
  NatsMicroServer,
  NatsMicroContext,
  type NatsMicroServerOptions,
  type EndpointExtras,
} from './micro-server';
export { BusExceptionFilter } from './exception-filter';
export { HealthRegistry, type HealthCheck, type CheckResult, type HealthReport } from './health';
export {
  BusModule,
  NATS_CONNECTION,
  SERVICE_IDENTITY,
  type ServiceIdentity,
  type BusModuleOptions,
} from './bus.module';
export {
  startService,
  runServiceMain,
  NOVELRAG_VERSION,
  type ServiceContext,
  type ServiceDefinition,
  type RunningService,
} from './bootstrap';
export {
  encodeCursor,
  decodeCursor,
  type GoalListQuery,
  type GoalPage,
  type GoalStore,
} from './stores/goal-store';
export { KvGoalStore } from './jetstream/goal-store';
export type { ThreadStore } from './stores/thread-store';
export { KvThreadStore } from './jetstream/thread-store';
export type { AcquireRequest, HeldThread, ThreadLeaseOptions, ThreadLeases } from './stores/thread-leases';
export { KvThreadLeases } from './jetstream/thread-leases';
export type { CasCells, CellRead } from './stores/cas-cells';
export { acceptGoal, newGoalRecord, type AcceptedGoal } from './jetstream/accept-goal';
export {
  ensureGoalsStream,
  ensureTraceStream,
  submitGoal,
  type EnsureOptions,
  type StreamNames,
  type SubmitResult,
} from './jetstream/streams';
export {
  discoverTools,
  type DiscoveredTool,
  type DiscoveryOptions,
  type InvalidToolEndpoint,
  type RefusedToolEndpoint,
  type ToolDiscovery,
} from './tools/discovery';
export { collectServiceStats } from './services/stats';
export { gather, GATHER_MAX_WAIT_MS, GATHER_QUIET_MS, type GatherOptions } from './tools/gather';
export {
  type QueuedTrace,
  TracePublisher,
  type TraceDraft,
  type TracePublisherOptions,
} from './jetstream/trace-publisher';
export { isWrongSequence } from './jetstream/kv-errors';
export { inReceiveSpan, inSendSpan, traceContextOf, withTraceHeaders } from './trace-headers';
