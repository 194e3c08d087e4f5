// fake OpenAI-compatible server
export { FakeOpenAIServer } from './fake-openai-server';
export type {
  FakeHandler,
  FakeMatch,
  FakeOpenAIServerOptions,
  FakeReply,
  FakeRequestKind,
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

// attack tests
export { forgedToolInfo } from './forged-tool-info';
