/** What a tool returns: a text result, or an error the model gets to see (a failed step, not an exception). */
export type ToolOutput =
  | { readonly type: 'result'; readonly result: string }
  | { readonly type: 'error'; readonly errorMessage: string; readonly code?: string };

export function toolResult(result: string): ToolOutput {
  return { type: 'result', result };
}

export function toolError(errorMessage: string, code?: string): ToolOutput {
  return code === undefined ? { type: 'error', errorMessage } : { type: 'error', errorMessage, code };
}

/** Structural check for outputs that come from outside the type system (remote tools, JS callers). */
export function isToolOutput(value: unknown): value is ToolOutput {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { type?: unknown; result?: unknown; errorMessage?: unknown; code?: unknown };
  if (v.type === 'result') return typeof v.result === 'string';
  if (v.type === 'error')
    return typeof v.errorMessage === 'string' && (v.code === undefined || typeof v.code === 'string');
  return false;
}
