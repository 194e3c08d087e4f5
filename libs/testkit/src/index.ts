// fake OpenAI-compatible server
export { FakeOpenAIServer } from './fake-openai-server';
export type {
  FakeHandler,
  FakeMatch,
  FakeOpenAIServerOptions,
  FakeReply,
  FakeRequestKind,
  FakeStreamEnd,
  FakeToolCall,
  FakeUsage,
  RecordedRequest,
} from './fake-openai-types';
export { hashedVector } from './fake-openai-responses';

// NATS
export { connectTestNats, freePort, startNats } from './nats-harness';
export type { NatsServerHandle, StartNatsOptions } from './nats-harness';
export { uniqueName } from './names';
export { describeServiceBoot, type BootedService } from './service-boot';

// OS processes: the services from their dist/, the CLI, a NATS server with the project's auth config
export { REPO_ROOT } from './repo-root';
export { buildServices, startServiceProcess, type ServiceProcess } from './service-process';
export { runNovelrag, type CliRun } from './cli-process';
export {
  NATS_CONFIG,
  NATS_USERS,
  passwordEnv,
  passwordOf,
  startAuthNats,
  type AuthNats,
  type NatsUser,
} from './auth-nats';

// the whole system (e2e): processes, gateway HTTP and SSE, the demo scenario and its checks
export { startSystem, spawnProcess, type StartSystemOptions, type System } from './system/system';
export type { FollowOptions, SseEvent } from './system/sse';
export {
  DEMO_REQUEST,
  aspectDraft,
  decide,
  demoScenario,
  finalize,
  holdAspectAnswer,
  installRules,
  type ScenarioRule,
} from './system/scenario';
export { expectDemoCompletedOnce, followAnswering, postGoal } from './system/demo-checks';
export { seedRepository, type SeedAspect } from './system/seed';
// third-party reference tools (examples/): build and run them as separate processes
export {
  type ExampleTool,
  GO_TOOL_BINARY,
  buildGoTool,
  startExampleTool,
  stopExampleTool,
} from './example-tools';
export { readSse, type RawSseEvent } from './sse';
// OpenTelemetry: an OTLP/HTTP receiver the services export their spans to
export { OtlpReceiver, type AttributeValue, type ReceivedSpan } from './otlp-receiver';
// Prometheus: scrape a /metrics endpoint and read it with a text-format parser
export { type MetricFamily, metricValue, scrapeMetrics } from './prometheus';
// the dashboard's browser suite: Debian's Chromium through playwright-core
export { type BrowserSession, CHROMIUM, buildDashboard, chromiumAvailable, openBrowser } from './browser';
// attack tests
export { forgedToolInfo } from './forged-tool-info';
export { settle } from './settle';
export {
  type ChaosOptions,
  type ChaosReport,
  chaosSettings,
  formatReport,
  runChaos,
  violations,
} from './chaos';
