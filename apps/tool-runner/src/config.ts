import { Buckets, MAX_TOOL_RESULT_CHARS } from '@novelrag/contracts';
import { LlmEnv } from '@novelrag/llm';
import { DEFAULT_ASK_TIMING } from '@novelrag/tool-kit';
import { z } from 'zod';

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** This service's own environment variables (BaseEnv from @novelrag/bus adds the shared ones). */
export const ToolRunnerEnv = z
  .object({
    NOVELRAG_TOOL_CONCURRENCY: int(1, 256)
      .default(4)
      .describe(
        'Invocations one runner executes at once; beyond it callers get `UNAVAILABLE` and retry on another runner.',
      ),
    NOVELRAG_TOOL_TIMEOUT_MS: int(100, 60 * 60_000)
      .default(120_000)
      .describe('Limit of a tool that declares none (the built-in tools declare their own).'),
    NOVELRAG_TOOL_LEASE_MS: int(500, 10 * 60_000)
      .default(10_000)
      .describe(
        "A running invocation's claim lasts this long unless renewed; a dead runner's claim is taken over after it.",
      ),
    NOVELRAG_TOOL_ORPHAN_WAIT_MS: int(500, 10 * 60_000)
      .default(DEFAULT_ASK_TIMING.orphanWaitMs)
      .describe(
        "A tool waiting for the human's answer gives its call back (retryable, no answer recorded) once no orchestrator has listened to its goal's questions for this long (the goal's orchestrator died and none took it over yet; the one that does re-sends the call).",
      ),
    NOVELRAG_TOOL_MAX_RESULT_CHARS: int(100, MAX_TOOL_RESULT_CHARS)
      .default(MAX_TOOL_RESULT_CHARS)
      .describe('Result size cap in characters (a longer result is answered with `TOOL_OUTPUT_TOO_LARGE`).'),
    NOVELRAG_TOOL_RESULTS_BUCKET: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, - and _ only')
      .default(Buckets.toolResults)
      .describe('KV bucket of claims and recorded results, shared by all runners.'),
    NOVELRAG_RESOURCE_TIMEOUT_MS: int(100, 10 * 60_000)
      .default(15_000)
      .describe('Bound on one resource-service request from a tool.'),
    NOVELRAG_WEB_SEARCH_URL: z
      .string()
      .url()
      .optional()
      .describe(
        'SearXNG-style JSON search endpoint for `web_search` (called as `<url>?q=<query>&format=json`); unset: ' +
          'the tool answers that web search is not configured.',
      ),
    NOVELRAG_WEB_ALLOW_PRIVATE: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true')
      .describe(
        'Whether `web_extract` may fetch private, loopback and link-local addresses (tests, trusted networks).',
      ),
    NOVELRAG_WEB_TIMEOUT_MS: int(500, 5 * 60_000)
      .default(15_000)
      .describe('Bound on one web fetch (`web_extract`, `web_search`), redirects included.'),
    NOVELRAG_WEB_MAX_BYTES: int(1_024, 50 * 1024 * 1024)
      .default(2 * 1024 * 1024)
      .describe(
        'Largest web page or search answer read, in bytes (a larger one is refused with `PAYLOAD_TOO_LARGE`).',
      ),
    NOVELRAG_IMAGE_SEARCH_URL: z
      .string()
      .url()
      .optional()
      .describe(
        'SearXNG-style JSON search endpoint for `image_search` (called as `<url>?q=<query>&format=json&categories=images`, ' +
          'reading `results[].img_src/thumbnail_src/url/title`); unset: the tool answers that image search is not configured.',
      ),
    NOVELRAG_IMAGE_API_BASE_URL: z
      .string()
      .url()
      .optional()
      .describe(
        'OpenAI-compatible images API for `image_generation` (`POST <url>/images/generations`, e.g. ' +
          '`https://api.openai.com/v1`); unset: the tool answers that image generation is not configured.',
      ),
    NOVELRAG_IMAGE_API_KEY: z
      .string()
      .min(1)
      .optional()
      .describe(
        'API key of `NOVELRAG_IMAGE_API_BASE_URL` (unset: a placeholder, for local servers that need none).',
      ),
    NOVELRAG_IMAGE_MODEL: z
      .string()
      .min(1)
      .default('dall-e-3')
      .describe(
        'Model of `image_generation`. The default answers with URLs; models that answer only with inline base64 ' +
          '(e.g. `gpt-image-1`) need `NOVELRAG_IMAGE_RESPONSE_FORMAT=none` and fit only small images (inline data is ' +
          'bounded).',
      ),
    NOVELRAG_IMAGE_RESPONSE_FORMAT: z
      .enum(['url', 'b64_json', 'none'])
      .default('url')
      .describe(
        '`response_format` sent to the images API: `url` (the provider hosts the image; the tool returns its address), ' +
          '`b64_json`, or `none` to send none (for models that refuse the parameter).',
      ),
    NOVELRAG_IMAGE_TIMEOUT_MS: int(1_000, 10 * 60_000)
      .default(120_000)
      .describe('Bound on one `image_generation` request (the provider is not asked again).'),
    NOVELRAG_TEMPLATES_DIR: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Prompt templates folder (`<dir>/<lang>/<name>.njk`); default: the nearest `templates/` folder.',
      ),
  })
  .extend(LlmEnv.shape);
export type ToolRunnerEnv = z.infer<typeof ToolRunnerEnv>;
