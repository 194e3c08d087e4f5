import { type Span, SpanKind } from '@opentelemetry/api';
import { inSpan } from './spans';

/** OpenTelemetry GenAI semantic-convention attribute names used on LLM spans. */
export const GenAi = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  /** Older name of `gen_ai.provider.name`, still read by several backends. */
  system: 'gen_ai.system',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  temperature: 'gen_ai.request.temperature',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  /** Project attribute: what the call is for (assess, decide, content_generation, ...). */
  purpose: 'novelrag.llm.purpose',
  attempts: 'novelrag.llm.attempts',
} as const;

let capture = false;

/** Set once at boot from `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`. */
export function setContentCapture(on: boolean): void {
  capture = on;
}

/** Whether prompts and completions may be recorded on spans (explicit opt-in only). */
export function contentCaptureEnabled(): boolean {
  return capture;
}

export interface LlmSpanStart {
  readonly operation: 'chat' | 'embeddings';
  readonly model: string;
  readonly purpose: string;
  readonly provider?: string;
  readonly temperature?: number;
}

/**
 * Runs one model call inside a CLIENT span named `<operation> <model>` with the GenAI request attributes; the caller
 * adds usage and response attributes with `recordLlmResult`.
 */
export function inLlmSpan<T>(start: LlmSpanStart, fn: (span: Span) => Promise<T>): Promise<T> {
  const provider = start.provider ?? 'openai';
  return inSpan(
    `${start.operation} ${start.model}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [GenAi.operation]: start.operation,
        [GenAi.provider]: provider,
        [GenAi.system]: provider,
        [GenAi.requestModel]: start.model,
        [GenAi.purpose]: start.purpose,
        ...(start.temperature !== undefined ? { [GenAi.temperature]: start.temperature } : {}),
      },
    },
    fn,
  );
}

export interface LlmSpanResult {
  readonly responseModel?: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly attempts: number;
  readonly finishReasons?: readonly string[];
  /** Recorded only when content capture is on. */
  readonly input?: unknown;
  readonly output?: unknown;
}

export function recordLlmResult(span: Span, result: LlmSpanResult): void {
  if (!span.isRecording()) return;
  span.setAttributes({
    [GenAi.inputTokens]: result.inputTokens,
    [GenAi.outputTokens]: result.outputTokens,
    [GenAi.attempts]: result.attempts,
    ...(result.responseModel ? { [GenAi.responseModel]: result.responseModel } : {}),
    ...(result.finishReasons?.length ? { [GenAi.finishReasons]: [...result.finishReasons] } : {}),
  });
  if (!capture) return;
  if (result.input !== undefined) span.setAttribute(GenAi.inputMessages, JSON.stringify(result.input));
  if (result.output !== undefined) span.setAttribute(GenAi.outputMessages, JSON.stringify(result.output));
}
