import { FakeOpenAIServer } from '@novelrag/testkit';
import { OpenAIChatModel, type OpenAIChatModelOptions } from '../openai-chat-model';
import type { LlmUsageEvent } from '../usage';

export interface FakeModelSuite {
  /** The suite's fake server (started before the first test, reset before each). */
  readonly server: FakeOpenAIServer;
  /** Usage events of the current test. */
  readonly events: LlmUsageEvent[];
  /** A model over the fake server: the suite's defaults, then `options`. */
  model(options?: Partial<OpenAIChatModelOptions>): OpenAIChatModel;
}

/**
 * The set-up the adapter's int suites share: one fake server for the suite, reset (and its usage events cleared)
 * before each test; models with SDK transport retries off and usage recorded. Call it inside `describe`.
 */
export function fakeModelSuite(defaults: Partial<OpenAIChatModelOptions> = {}): FakeModelSuite {
  let server: FakeOpenAIServer | undefined;
  const events: LlmUsageEvent[] = [];
  beforeAll(async () => {
    server = await FakeOpenAIServer.start();
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    server?.reset();
    events.length = 0;
  });
  const started = (): FakeOpenAIServer => {
    if (!server) throw new Error('fakeModelSuite: the server starts in beforeAll');
    return server;
  };
  return {
    get server() {
      return started();
    },
    events,
    model: (options = {}) =>
      new OpenAIChatModel({
        baseURL: started().baseURL,
        apiKey: 'sk-test-key',
        models: { default: 'fake' },
        maxRetries: 0,
        onUsage: (e) => events.push(e),
        ...defaults,
        ...options,
      }),
  };
}
