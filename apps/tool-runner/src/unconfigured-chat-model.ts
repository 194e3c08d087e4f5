import { type ChatModel, ModelUnavailableError } from '@novelrag/agenturn';

/**
 * The model when no provider is configured: the tools still register (and the model-free ones work), and a tool that
 * needs the model fails with a clear, non-retryable MODEL_UNAVAILABLE instead of the runner refusing to start.
 */
export class UnconfiguredChatModel implements ChatModel {
  private fail(): never {
    throw new ModelUnavailableError('no LLM provider configured: set OPENAI_API_KEY or OPENAI_BASE_URL', {
      retryable: false,
    });
  }
  structured(): never {
    return this.fail();
  }
  callTools(): never {
    return this.fail();
  }
  text(): never {
    return this.fail();
  }
  stream(): never {
    return this.fail();
  }
}
