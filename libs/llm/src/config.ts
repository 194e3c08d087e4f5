import { ConfigError } from '@novelrag/agenturn';
import { z } from 'zod';
import { OpenAIChatModel, type OpenAIChatModelOptions } from './openai-chat-model';
import { OpenAIEmbeddings, type OpenAIEmbeddingsOptions } from './openai-embeddings';

/** Unset and empty are the same thing in environments (`OPENAI_API_KEY=` in a compose file). */
const optionalString = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
  z.string().optional(),
);

const positiveInt = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
  z.coerce.number().int().positive().optional(),
);

const PURPOSE_MODEL = /^\s*([a-z][a-z0-9_-]*)\s*=\s*([^,=\s]+)\s*$/;

/** `purpose=model,purpose=model` → record; rejects entries that are not `name=model`. */
const purposeModels = optionalString.transform((value, ctx) => {
  const out: Record<string, string> = {};
  if (value === undefined) return out;
  for (const entry of value.split(',').filter((e) => e.trim() !== '')) {
    const m = PURPOSE_MODEL.exec(entry);
    if (!m?.[1] || !m[2]) {
      ctx.addIssue({ code: 'custom', message: 'expected a comma-separated list of purpose=model entries' });
      return z.NEVER;
    }
    out[m[1]] = m[2];
  }
  return out;
});

/** The LLM part of a service's environment. Parse it once at boot with `parseLlmEnv`. */
export const LlmEnv = z.object({
  OPENAI_API_KEY: optionalString.describe(
    'Key of the OpenAI-compatible provider. With neither this nor `OPENAI_BASE_URL` no real model is used (`npm start` then runs the scripted model).',
  ),
  OPENAI_BASE_URL: optionalString
    .pipe(z.url({ protocol: /^https?$/ }).optional())
    .describe('Any OpenAI-compatible server (vLLM, Ollama, llama.cpp, Azure…); default: OpenAI.'),
  NOVELRAG_MODEL: optionalString.transform((v) => v ?? 'gpt-4o-mini').describe('Default chat model.'),
  NOVELRAG_MODELS: purposeModels.describe(
    'Per-purpose model overrides, e.g. `decide=gpt-4o,assess=gpt-4o-mini`.',
  ),
  NOVELRAG_LLM_MODE: optionalString
    .pipe(z.enum(['json_schema', 'json_object']).optional())
    .transform((v) => v ?? 'json_schema')
    .describe(
      'Structured output mode: `json_object` for servers without strict structured outputs (the schema then goes in the prompt).',
    ),
  NOVELRAG_LLM_TIMEOUT_MS: positiveInt
    .transform((v) => v ?? 60_000)
    .describe(
      'Bound on one model request, transport retries included; a streamed answer: on the wait for its first piece and on every silence between pieces (the whole stream at most ten times this).',
    ),
  NOVELRAG_LLM_TRANSPORT: optionalString
    .pipe(z.enum(['http', 'fetch']).optional())
    .transform((v) => v ?? 'http')
    .describe(
      "How chat requests reach the provider: `http` (node:http with keep-alive, about half the client CPU per call) or `fetch` (Node's built-in fetch). Both honour an outbound proxy from `HTTP_PROXY`/`HTTPS_PROXY`/`NO_PROXY` when `NODE_USE_ENV_PROXY=1`.",
    ),
  NOVELRAG_EMBEDDING_MODEL: optionalString.describe(
    'OpenAI-compatible `/v1/embeddings` model for the resource-service; default: a local hashed n-gram embedder.',
  ),
  NOVELRAG_EMBEDDING_DIMENSIONS: positiveInt.describe(
    'Vector size of `NOVELRAG_EMBEDDING_MODEL`; required for models whose size is not known. A store made for another size is resized and re-embedded when the resource-service opens it.',
  ),
  NOVELRAG_EMBEDDING_BASE_URL: optionalString
    .pipe(z.url({ protocol: /^https?$/ }).optional())
    .describe(
      'An embeddings server other than the chat provider (e.g. a local one serving a multilingual model).',
    ),
  NOVELRAG_EMBEDDING_API_KEY: optionalString.describe(
    'API key of `NOVELRAG_EMBEDDING_BASE_URL`; default: `OPENAI_API_KEY`.',
  ),
});
export type LlmEnv = z.infer<typeof LlmEnv>;

/**
 * Parses the LLM variables of `env`. Throws `ConfigError` naming each bad variable and why; values are never echoed
 * (one of them is the API key).
 */
export function parseLlmEnv(env: Readonly<Record<string, string | undefined>> = process.env): LlmEnv {
  const result = LlmEnv.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${i.path.map(String).join('.') || '(env)'}: ${i.message}`);
  throw new ConfigError(`invalid LLM configuration: ${problems.join('; ')}`, {
    details: { variables: result.error.issues.map((i) => i.path.map(String).join('.')) },
  });
}

/** True when the environment points at a provider (a key for OpenAI, or a base URL for a local server). */
export function hasLlmProvider(config: LlmEnv): boolean {
  return config.OPENAI_API_KEY !== undefined || config.OPENAI_BASE_URL !== undefined;
}

/**
 * The OpenAI chat model the environment describes, or `null` when no provider is configured (the caller then decides
 * on the scripted model, and says so). `overrides` adds what the environment does not carry (usage hook, retries).
 */
export function createChatModelFromEnv(
  env: LlmEnv,
  overrides: Partial<Omit<OpenAIChatModelOptions, 'models'>> = {},
): OpenAIChatModel | null {
  if (!hasLlmProvider(env)) return null;
  return new OpenAIChatModel({
    ...(env.OPENAI_API_KEY ? { apiKey: env.OPENAI_API_KEY } : {}),
    ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : {}),
    models: { default: env.NOVELRAG_MODEL, byPurpose: env.NOVELRAG_MODELS },
    structuredMode: env.NOVELRAG_LLM_MODE,
    timeoutMs: env.NOVELRAG_LLM_TIMEOUT_MS,
    ...(env.NOVELRAG_LLM_TRANSPORT === 'fetch' ? { fetch: globalThis.fetch } : {}),
    ...overrides,
  });
}

/**
 * The OpenAI-compatible embedder the environment describes: `NOVELRAG_EMBEDDING_MODEL` on the embeddings server
 * (`NOVELRAG_EMBEDDING_BASE_URL`/`_API_KEY`, else the chat provider's `OPENAI_BASE_URL`/`OPENAI_API_KEY`). `null`
 * when no model or no server is set (the resource-service then uses its offline fallback, the local hashed
 * embedder). Throws `ConfigError` when the model's size is unknown and `NOVELRAG_EMBEDDING_DIMENSIONS` is missing.
 */
export function createEmbedderFromEnv(
  env: LlmEnv,
  overrides: Partial<Omit<OpenAIEmbeddingsOptions, 'model'>> = {},
): OpenAIEmbeddings | null {
  if (env.NOVELRAG_EMBEDDING_MODEL === undefined) return null;
  const own = env.NOVELRAG_EMBEDDING_BASE_URL !== undefined || env.NOVELRAG_EMBEDDING_API_KEY !== undefined;
  if (!own && !hasLlmProvider(env)) return null;
  const apiKey = own ? env.NOVELRAG_EMBEDDING_API_KEY : env.OPENAI_API_KEY;
  const baseURL = own ? env.NOVELRAG_EMBEDDING_BASE_URL : env.OPENAI_BASE_URL;
  return new OpenAIEmbeddings({
    ...(apiKey ? { apiKey } : {}),
    ...(baseURL ? { baseURL } : {}),
    model: env.NOVELRAG_EMBEDDING_MODEL,
    ...(env.NOVELRAG_EMBEDDING_DIMENSIONS === undefined
      ? {}
      : { dimensions: env.NOVELRAG_EMBEDDING_DIMENSIONS }),
    timeoutMs: env.NOVELRAG_LLM_TIMEOUT_MS,
    ...overrides,
  });
}
