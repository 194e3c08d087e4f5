import type { ChatModel, ChatResult, PromptRenderer } from '@novelrag/agenturn';
import { buildMessages, contentDirective } from '@novelrag/llm';
import type { ToolContext } from '@novelrag/tool-kit';
import type { z } from 'zod';

export interface PromptCall {
  /** Template name under `templates/<lang>/` (without `.njk`). */
  readonly template: string;
  readonly variables: Readonly<Record<string, unknown>>;
  /** The fixed user turn. */
  readonly instruction: string;
  /** Model routing and usage reporting (`NOVELRAG_MODELS` key). */
  readonly purpose: string;
}

/**
 * How the built-in tools talk to the model: the template rendered in the invocation's language, the content-language
 * directive (language, else the beliefs' language) in front, a fixed instruction as the user turn, and the tool's
 * abort signal on every call.
 */
export class ToolLlm {
  constructor(
    private readonly model: ChatModel,
    private readonly renderer: PromptRenderer,
  ) {}

  async structured<T>(
    ctx: ToolContext,
    call: PromptCall & { readonly schema: z.ZodType<T>; readonly schemaName: string },
    signal: AbortSignal,
  ): Promise<T> {
    return this.reported(ctx, call.purpose, () =>
      this.model.structured({
        messages: this.messages(ctx, call),
        purpose: call.purpose,
        schema: call.schema,
        schemaName: call.schemaName,
        signal,
        timeoutMs: this.remaining(ctx),
      }),
    );
  }

  async text(ctx: ToolContext, call: PromptCall, signal: AbortSignal): Promise<string> {
    const text = await this.reported(ctx, call.purpose, () =>
      this.model.text({
        messages: this.messages(ctx, call),
        purpose: call.purpose,
        signal,
        timeoutMs: this.remaining(ctx),
      }),
    );
    return text.trim();
  }

  /**
   * Runs one model call and reports its usage to the goal (its tokens count against the goal's budget). A failed call
   * is reported too, without tokens (the error does not say how many the provider counted).
   */
  private async reported<T>(
    ctx: ToolContext,
    purpose: string,
    run: () => Promise<ChatResult<T>>,
  ): Promise<T> {
    const started = Date.now();
    let result: ChatResult<T>;
    try {
      result = await run();
    } catch (err) {
      ctx.modelCall?.({
        purpose,
        model: 'unknown',
        promptTokens: 0,
        completionTokens: 0,
        latencyMs: Date.now() - started,
        attempts: 1,
        ok: false,
      });
      throw err;
    }
    ctx.modelCall?.({
      purpose,
      model: result.model,
      promptTokens: result.usage.promptTokens,
      completionTokens: result.usage.completionTokens,
      latencyMs: result.latencyMs,
      attempts: result.attempts,
      ok: true,
    });
    return result.value;
  }

  private messages(ctx: ToolContext, call: PromptCall) {
    const { lang, beliefs } = ctx.invocation;
    const rendered = this.renderer.render(call.template, call.variables, lang);
    return buildMessages(contentDirective(lang, beliefs), rendered, call.instruction);
  }

  private remaining(ctx: ToolContext): number {
    return Math.max(1_000, ctx.deadline - Date.now());
  }
}
