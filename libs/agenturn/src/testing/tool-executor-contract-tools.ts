import type { ExecutionContext } from '../execution/execution-context';
import type { SchematicTool } from '../tool/schematic-tool';
import { deferred, type Deferred } from './deferred';
import { FakeTool, fakeTool } from './fake-tool';

/** How long the contract's deadline tools may run (the executor must fail them with TIMEOUT). */
export const CONTRACT_SHORT_TIMEOUT_MS = 500;
/** The deadline of every other contract tool: far more than any case needs, so none of them can time out. */
export const CONTRACT_TIMEOUT_MS = 60_000;

const HINTS = { readOnly: true, destructive: false, idempotent: true } as const;

/** Tools whose calls the contract cases make; `release()` lets every waiting one finish (call it before cleanup). */
export interface ContractTools {
  readonly echo: FakeTool;
  readonly refuse: FakeTool;
  readonly explode: FakeTool;
  readonly strict: FakeTool;
  readonly hang: FakeTool;
  readonly chatty: FakeTool;
  readonly ask: FakeTool;
  readonly overrun: FakeTool;
  readonly deaf: FakeTool;
  readonly all: readonly SchematicTool[];
  release(): void;
}

/** What the `chatty` tool says through its context, in order. */
export async function chatter(ctx: ExecutionContext): Promise<string> {
  ctx.debug('contract debug');
  ctx.info('contract info');
  ctx.warning('contract warning');
  ctx.error('contract error');
  ctx.output('contract output');
  ctx.progress('contract_items', '3', 'items done');
  ctx.backlog({ description: 'contract follow-up' }, 3);
  return 'said everything';
}

/** Fresh contract tools (their calls are recorded per instance). */
export function contractTools(): ContractTools {
  const gate: Deferred<void> = deferred();
  const tool = (options: Parameters<typeof fakeTool>[0]) =>
    fakeTool({ timeoutMs: CONTRACT_TIMEOUT_MS, hints: HINTS, ...options });
  const tools = {
    echo: tool({ name: 'contract_echo', result: (params) => JSON.stringify(params) }),
    refuse: tool({ name: 'contract_refuse', error: { message: 'cannot do that', code: 'TOOL_FAILED' } }),
    explode: tool({ name: 'contract_explode', throws: new Error('boom') }),
    strict: tool({
      name: 'contract_strict',
      inputSchema: {
        type: 'object',
        properties: { count: { type: 'integer' } },
        required: ['count'],
        additionalProperties: false,
      },
      result: (params) => `counted ${String(params['count'])}`,
    }),
    hang: tool({ name: 'contract_hang', until: gate.promise }),
    chatty: tool({ name: 'contract_chatty', result: (_params, ctx) => chatter(ctx) }),
    ask: tool({
      name: 'contract_ask',
      result: async (_params, ctx) => {
        const approved = await ctx.confirm('Overwrite the chapter?');
        const name = await ctx.request('Name the new character');
        return JSON.stringify({ approved, name });
      },
    }),
    overrun: tool({ name: 'contract_overrun', timeoutMs: CONTRACT_SHORT_TIMEOUT_MS, until: gate.promise }),
    deaf: tool({
      name: 'contract_deaf',
      timeoutMs: CONTRACT_SHORT_TIMEOUT_MS,
      until: gate.promise,
      honourSignal: false,
    }),
  };
  return { ...tools, all: Object.values(tools), release: () => gate.resolve() };
}

export { FakeTool };
