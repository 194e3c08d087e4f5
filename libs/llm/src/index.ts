// chat model (OpenAI Chat Completions and compatible servers)
export { OpenAIChatModel } from './openai-chat-model';
export type { ModelSelection, OpenAIChatModelOptions, StructuredMode } from './openai-chat-model';
export { toProviderJsonSchema } from './json-schema';

// embeddings
export type { Embedder } from './embedder';
export { OpenAIEmbeddings } from './openai-embeddings';
export type { OpenAIEmbeddingsOptions } from './openai-embeddings';

// usage reporting
export type { LlmCallKind, LlmCallOutcome, LlmUsageEvent, LlmUsageHook } from './usage';

// prompts
export { NunjucksPromptRenderer } from './nunjucks-prompt-renderer';
export type { NunjucksPromptRendererOptions } from './nunjucks-prompt-renderer';
export { findTemplatesRoot } from './templates-root';
export {
  LANGUAGE_NAMES,
  baseLanguage,
  contentDirective,
  interactionDirective,
  languageName,
} from './language';
export { buildMessages } from './messages';

// configuration
export { mapOpenAIError } from './openai-errors';
export { LlmEnv, createChatModelFromEnv, createEmbedderFromEnv, hasLlmProvider, parseLlmEnv } from './config';
