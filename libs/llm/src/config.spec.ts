import { createChatModelFromEnv, createEmbedderFromEnv, parseLlmEnv } from './config';
import { OpenAIChatModel } from './openai-chat-model';

function caught(fn: () => unknown): Error & { code?: string; details?: Record<string, unknown> } {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
}

describe('LLM env config', () => {
  it('applies defaults and treats empty values as unset', () => {
    const env = parseLlmEnv({ OPENAI_API_KEY: '', NOVELRAG_LLM_TIMEOUT_MS: '' });
    expect(env).toEqual({
      OPENAI_API_KEY: undefined,
      OPENAI_BASE_URL: undefined,
      NOVELRAG_MODEL: 'gpt-4o-mini',
      NOVELRAG_MODELS: {},
      NOVELRAG_LLM_MODE: 'json_schema',
      NOVELRAG_LLM_TIMEOUT_MS: 60_000,
      NOVELRAG_LLM_TRANSPORT: 'http',
      NOVELRAG_EMBEDDING_MODEL: undefined,
      NOVELRAG_EMBEDDING_DIMENSIONS: undefined,
    });
  });

  it('parses models per purpose, mode, timeout and embedding settings', () => {
    const env = parseLlmEnv({
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      NOVELRAG_MODEL: 'qwen3',
      NOVELRAG_MODELS: 'decide=qwen3-32b, assess = qwen3-8b',
      NOVELRAG_LLM_MODE: 'json_object',
      NOVELRAG_LLM_TIMEOUT_MS: '1500',
      NOVELRAG_EMBEDDING_MODEL: 'nomic-embed-text',
      NOVELRAG_EMBEDDING_DIMENSIONS: '768',
    });
    expect(env.NOVELRAG_MODELS).toEqual({ decide: 'qwen3-32b', assess: 'qwen3-8b' });
    expect(env.NOVELRAG_LLM_MODE).toBe('json_object');
    expect(env.NOVELRAG_LLM_TIMEOUT_MS).toBe(1500);
    expect(env.NOVELRAG_EMBEDDING_DIMENSIONS).toBe(768);
    const model = createChatModelFromEnv(env);
    expect(model).toBeInstanceOf(OpenAIChatModel);
    expect(model?.modelFor('decide')).toBe('qwen3-32b');
    expect(model?.modelFor('translate')).toBe('qwen3');
    expect(createEmbedderFromEnv(env)?.dimensions).toBe(768);
  });

  it('sends chat requests over node:http by default and over the global fetch when told (a proxy needs it)', async () => {
    // A closed port: each request fails at once, and the spy shows which transport tried it.
    const spy = jest.spyOn(globalThis, 'fetch').mockRejectedValue(new TypeError('fetch failed'));
    try {
      const ask = async (transport?: string) => {
        const env = parseLlmEnv({
          OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
          ...(transport ? { NOVELRAG_LLM_TRANSPORT: transport } : {}),
        });
        const model = createChatModelFromEnv(env, { maxRetries: 0 });
        await expect(
          model?.text({ messages: [{ role: 'user', content: 'hi' }], purpose: 'answer' }),
        ).rejects.toMatchObject({ code: 'MODEL_UNAVAILABLE' });
      };
      await ask();
      expect(spy).not.toHaveBeenCalled();
      await ask('fetch');
      expect(spy).toHaveBeenCalledTimes(1);
      expect(() => parseLlmEnv({ NOVELRAG_LLM_TRANSPORT: 'curl' })).toThrow(/NOVELRAG_LLM_TRANSPORT/);
    } finally {
      spy.mockRestore();
    }
  });

  it('names every bad variable in a ConfigError without echoing values', () => {
    const err = caught(() =>
      parseLlmEnv({
        OPENAI_API_KEY: 'sk-secret-value',
        OPENAI_BASE_URL: 'not a url',
        NOVELRAG_MODELS: 'decide',
        NOVELRAG_LLM_MODE: 'xml',
        NOVELRAG_LLM_TIMEOUT_MS: '-5',
        NOVELRAG_EMBEDDING_DIMENSIONS: 'many',
      }),
    );
    expect(err.name).toBe('ConfigError');
    for (const name of [
      'OPENAI_BASE_URL',
      'NOVELRAG_MODELS',
      'NOVELRAG_LLM_MODE',
      'NOVELRAG_LLM_TIMEOUT_MS',
      'NOVELRAG_EMBEDDING_DIMENSIONS',
    ]) {
      expect(err.message).toContain(name);
    }
    expect(err.message).not.toContain('sk-secret-value');
    expect(err.message).not.toContain('not a url');
  });

  it('returns no chat model and no embedder without a provider', () => {
    const env = parseLlmEnv({ NOVELRAG_EMBEDDING_MODEL: 'text-embedding-3-small' });
    expect(createChatModelFromEnv(env)).toBeNull();
    expect(createEmbedderFromEnv(env)).toBeNull();
  });

  it('uses a separate embeddings server when one is configured, and names the model in the embedder id', () => {
    const own = parseLlmEnv({
      NOVELRAG_EMBEDDING_BASE_URL: 'http://embeddings.local:8080/v1',
      NOVELRAG_EMBEDDING_MODEL: 'bge-m3',
      NOVELRAG_EMBEDDING_DIMENSIONS: '1024',
    });
    expect(createChatModelFromEnv(own)).toBeNull();
    expect(createEmbedderFromEnv(own)?.id).toBe('openai-compatible:bge-m3:1024');
    const shared = parseLlmEnv({ OPENAI_API_KEY: 'k', NOVELRAG_EMBEDDING_MODEL: 'text-embedding-3-small' });
    expect(createEmbedderFromEnv(shared)?.id).toBe('openai-compatible:text-embedding-3-small:1536');
    expect(createEmbedderFromEnv(parseLlmEnv({ NOVELRAG_EMBEDDING_MODEL: 'bge-m3' }))).toBeNull();
    expect(() => parseLlmEnv({ NOVELRAG_EMBEDDING_BASE_URL: 'not a url' })).toThrow(
      /NOVELRAG_EMBEDDING_BASE_URL/,
    );
  });

  it('knows the size of OpenAI embedding models and requires it for others', () => {
    expect(
      createEmbedderFromEnv(
        parseLlmEnv({ OPENAI_API_KEY: 'k', NOVELRAG_EMBEDDING_MODEL: 'text-embedding-3-large' }),
      )?.dimensions,
    ).toBe(3072);
    const err = caught(() =>
      createEmbedderFromEnv(parseLlmEnv({ OPENAI_API_KEY: 'k', NOVELRAG_EMBEDDING_MODEL: 'bge-m3' })),
    );
    expect(err.name).toBe('ConfigError');
    expect(err.message).toContain('NOVELRAG_EMBEDDING_DIMENSIONS');
  });
});
