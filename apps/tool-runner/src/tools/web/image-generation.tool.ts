import { AgenturnError, toolError, toolResult } from '@novelrag/agenturn';
import { mapOpenAIError } from '@novelrag/llm';
import type { HostedTool } from '@novelrag/tool-kit';
import OpenAI from 'openai';
import { z } from 'zod';
import type { ImageApiConfig } from './web-config';

/** Inline (base64) images of one answer are returned as data URLs up to this many characters in all. */
export const MAX_INLINE_IMAGE_CHARS = 80_000;

/** The part of an images API answer the tool uses: each image as a URL or as inline base64. */
const ImagesAnswer = z.object({
  data: z
    .array(
      z.object({
        url: z.url({ protocol: /^https?$/ }).nullish(),
        b64_json: z.base64().nullish(),
        revised_prompt: z.string().nullish(),
      }),
    )
    .min(1),
});

type Image = { readonly url: string; readonly revised_prompt?: string };

/** Image generation through an OpenAI-compatible images API (`POST <base>/images/generations`). */
export function imageGenerationTool(config: ImageApiConfig | undefined): HostedTool {
  return {
    name: 'image_generation',
    description:
      'Generate images from a text description. Returns each image as a URL (an https address of the provider, ' +
      'or a data: URL for a small inline image).',
    outputDescription: 'JSON {"images": [{"url", "revised_prompt"?}]}.',
    inputSchema: {
      type: 'object',
      properties: {
        prompt: { type: 'string', minLength: 1, maxLength: 4000, description: 'What the image should show' },
        n: { type: 'integer', minimum: 1, maximum: 4, description: 'How many images (default 1)' },
        size: {
          type: 'string',
          pattern: '^(auto|[0-9]{3,4}x[0-9]{3,4})$',
          description: 'WIDTHxHEIGHT as the provider accepts it, e.g. 1024x1024 (default: the provider’s)',
        },
      },
      required: ['prompt'],
      additionalProperties: false,
    },
    timeoutMs: (config?.timeoutMs ?? 0) + 5_000,
    // Each call costs the provider's price: not read-only, not idempotent, so the tool kit runs an invocation once and
    // answers a retried one with the recorded result.
    hints: { readOnly: false, destructive: false, idempotent: false },
    async call(ctx, params, signal) {
      if (!config)
        return toolError(
          'image generation is not configured on this deployment (the tool-runner has no NOVELRAG_IMAGE_API_BASE_URL)',
          'TOOL_FAILED',
        );
      try {
        const images = await generate(config, params, signal);
        if (!images)
          return toolError(
            'the images API did not answer with images (a URL or base64 data each)',
            'TOOL_FAILED',
          );
        const inline = images.filter((i) => i.url.startsWith('data:')).reduce((n, i) => n + i.url.length, 0);
        if (inline > MAX_INLINE_IMAGE_CHARS)
          return toolError(
            `the provider answered with ${inline} characters of inline image data (at most ` +
              `${MAX_INLINE_IMAGE_CHARS}); use a model that answers with URLs (NOVELRAG_IMAGE_RESPONSE_FORMAT=url)`,
            'PAYLOAD_TOO_LARGE',
          );
        return toolResult(JSON.stringify({ images }));
      } catch (error) {
        if (!(error instanceof AgenturnError)) throw error;
        ctx.error(`image_generation: ${error.code}`);
        return toolError(error.message, error.code);
      }
    },
  };
}

async function generate(
  config: ImageApiConfig,
  params: Readonly<Record<string, unknown>>,
  signal: AbortSignal,
): Promise<Image[] | undefined> {
  const client = new OpenAI({
    baseURL: config.baseUrl,
    apiKey: config.apiKey ?? 'unused',
    timeout: config.timeoutMs,
    maxRetries: 0,
  });
  const deadline = AbortSignal.timeout(config.timeoutMs);
  let raw: unknown;
  try {
    raw = await client.images.generate(
      {
        model: config.model,
        prompt: String(params['prompt']),
        n: Number(params['n'] ?? 1),
        ...(typeof params['size'] === 'string' ? { size: params['size'] as 'auto' } : {}),
        ...(config.responseFormat ? { response_format: config.responseFormat } : {}),
      },
      { signal: AbortSignal.any([signal, deadline]) },
    );
  } catch (error) {
    throw mapOpenAIError(error, {
      purpose: 'image_generation',
      timeoutMs: config.timeoutMs,
      callerSignal: signal,
      deadlineFired: deadline.aborted,
      operation: 'images',
    });
  }
  const answer = ImagesAnswer.safeParse(raw);
  const images = (answer.data?.data ?? []).map((image) => ({
    url: image.url ?? (image.b64_json ? `data:${imageTypeOf(image.b64_json)};base64,${image.b64_json}` : ''),
    ...(image.revised_prompt ? { revised_prompt: image.revised_prompt } : {}),
  }));
  return images.length > 0 && images.every((i) => i.url) ? images : undefined;
}

/** The base64 starts of the image formats the images APIs answer with (`output_format`): PNG unless another's. */
const BASE64_STARTS: readonly (readonly [string, string])[] = [
  ['/9j/', 'image/jpeg'],
  ['UklGR', 'image/webp'],
  ['R0lGOD', 'image/gif'],
];

function imageTypeOf(base64: string): string {
  return BASE64_STARTS.find(([start]) => base64.startsWith(start))?.[1] ?? 'image/png';
}
