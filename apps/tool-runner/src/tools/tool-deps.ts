import type { MemoryPort } from '@novelrag/agenturn';
import type { WriteOrigin } from '@novelrag/contracts';
import type { ToolContext } from '@novelrag/tool-kit';
import type { ToolLlm } from '../prompts/tool-llm';
import type { ResourceService } from '@novelrag/resource-client';
import type { WebToolsConfig } from './web/web-config';

/**
 * What the built-in tools need: the resource-service, the thread memory, the model, a random source (injected for
 * tests) and the web settings.
 */
export interface ToolDeps {
  readonly resources: ResourceService;
  readonly memory: MemoryPort;
  readonly llm: ToolLlm;
  /** Uniform in [0, 1). */
  readonly random: () => number;
  readonly web: WebToolsConfig;
}

export function originOf(ctx: ToolContext, tool: string): WriteOrigin {
  return { goalId: ctx.invocation.goalId, tool, step: ctx.invocation.step };
}

/**
 * Idempotency key of the `index`-th write of an invocation: the same on a retry of the invocation, so a write the
 * first attempt already applied is not applied again (resources.apply remembers keys).
 */
export function writeKey(ctx: ToolContext, part: string): string {
  const key = `${ctx.invocation.invocationId}-${part}`;
  return key.length <= 128 ? key : key.slice(key.length - 128);
}
