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
  GoalStore,
  encodeCursor,
  decodeCursor,
  isWrongSequence,
  type GoalListQuery,
  type GoalPage,
} from './jetstream/goal-store';
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
export { TracePublisher, type TraceDraft, type TracePublisherOptions } from './jetstream/trace-publisher';
