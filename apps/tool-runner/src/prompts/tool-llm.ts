import type { ChatModel, PromptRenderer } from '@novelrag/agenturn';
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
    const result = await this.model.structured({
      messages: this.messages(ctx, call),
      purpose: call.purpose,
      schema: call.schema,
      schemaName: call.schemaName,
      signal,
      timeoutMs: this.remaining(ctx),
    });
    return result.value;
  }

  async text(ctx: ToolContext, call: PromptCall, signal: AbortSignal): Promise<string> {
    const result = await this.model.text({
      messages: this.messages(ctx, call),
      purpose: call.purpose,
      signal,
      timeoutMs: this.remaining(ctx),
    });
    return result.value.trim();
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
