import type {
  OutputIssue,
  ToolCallReply,
  ToolCallRequest,
  ToolChoice,
  ToolDefinition,
} from '@novelrag/agenturn';
import type { ChatCompletionMessage, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from 'zod';

/**
 * What one model answer means: a value, or why it is unusable plus the messages that feed the problem back to the
 * model for the next attempt. `issues` and `reason` end up in `ModelOutputError` and logs, so they never quote the
 * output; `retryMessages` go only to the model and may.
 */
export type Interpretation<T> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false;
      readonly reason: string;
      readonly issues: readonly OutputIssue[];
      readonly rawOutputLength: number;
      readonly retryMessages: readonly ChatCompletionMessageParam[];
    };

/** An answer without any choice (nothing to interpret). */
export const NO_CHOICES: Interpretation<never> = {
  ok: false,
  reason: 'no choices in the answer',
  issues: [],
  rawOutputLength: 0,
  retryMessages: [],
};

function echo(content: string | null | undefined): ChatCompletionMessageParam[] {
  // An empty assistant turn is rejected by some servers; only echo what the model actually wrote.
  return content ? [{ role: 'assistant', content }] : [];
}

function zodIssues(error: z.ZodError): OutputIssue[] {
  return error.issues.map((i) => ({
    path: i.path.length > 0 ? i.path.map(String).join('.') : '(root)',
    message: i.message,
  }));
}

/** Local servers (and json_object mode) sometimes wrap JSON in a Markdown fence; accept that one wrapper. */
export function stripCodeFence(text: string): string {
  const m = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/i.exec(text);
  return m?.[1] ?? text;
}

/** `restore` maps the parsed JSON to the schema's input first (the provider schema may differ, see json-schema.ts). */
export function interpretStructured<T>(
  message: ChatCompletionMessage,
  schema: z.ZodType<T>,
  restore: (answer: unknown) => unknown = (answer) => answer,
): Interpretation<T> {
  if (message.refusal) {
    return {
      ok: false,
      reason: 'refusal',
      issues: [],
      rawOutputLength: 0,
      retryMessages: [
        ...echo(message.refusal),
        { role: 'user', content: 'Please answer the task with the requested JSON object; do not refuse.' },
      ],
    };
  }
  const content = message.content ?? '';
  if (content.trim() === '') {
    return {
      ok: false,
      reason: 'empty output',
      issues: [],
      rawOutputLength: 0,
      retryMessages: [
        { role: 'user', content: 'Your answer was empty. Answer with the requested JSON object only.' },
      ],
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(stripCodeFence(content));
  } catch (err) {
    const detail = err instanceof Error ? err.message : 'parse error';
    return {
      ok: false,
      reason: 'invalid JSON',
      issues: [{ path: '(root)', message: 'output is not valid JSON' }],
      rawOutputLength: content.length,
      retryMessages: [
        ...echo(content),
        {
          role: 'user',
          content: `Your previous answer was not valid JSON (${detail}). Answer again with only the JSON object, no prose.`,
        },
      ],
    };
  }
  const result = schema.safeParse(restore(parsed));
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    reason: 'schema mismatch',
    issues: zodIssues(result.error),
    rawOutputLength: content.length,
    retryMessages: [
      ...echo(content),
      {
        role: 'user',
        content:
          'Your previous answer did not match the required schema:\n' +
          `${z.prettifyError(result.error)}\n` +
          'Answer again with a corrected JSON object only.',
      },
    ],
  };
}

export function interpretText(message: ChatCompletionMessage): Interpretation<string> {
  const content = message.content ?? '';
  if (content.trim() !== '') return { ok: true, value: content };
  return {
    ok: false,
    reason: message.refusal ? 'refusal' : 'empty output',
    issues: [],
    rawOutputLength: 0,
    retryMessages: [
      ...echo(message.refusal),
      { role: 'user', content: 'Your answer was empty. Please answer the task.' },
    ],
  };
}

type ParsedArguments =
  | { ok: true; value: Record<string, unknown> }
  /** `problem` is safe to report; `detail` (the JSON parser's message) may quote the output. */
  | { ok: false; problem: string; detail?: string };

function parseArguments(raw: string): ParsedArguments {
  // Some compatible servers send "" for a call without parameters.
  if (raw.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(stripCodeFence(raw));
  } catch (err) {
    return {
      ok: false,
      problem: 'arguments are not valid JSON',
      detail: err instanceof Error ? err.message : undefined,
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problem: 'arguments must be a JSON object' };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function choiceInstruction(choice: ToolChoice): string {
  return typeof choice === 'object'
    ? `You must call the tool "${choice.name}".`
    : 'You must call one of the tools.';
}

export function interpretToolCalls(
  message: ChatCompletionMessage,
  tools: readonly ToolDefinition[],
  choice: ToolChoice,
): Interpretation<ToolCallReply> {
  const calls = message.tool_calls ?? [];
  const content = message.content ? message.content : null;
  if (calls.length === 0) {
    if (choice === 'auto') return { ok: true, value: { content, toolCalls: [] } };
    return {
      ok: false,
      reason: 'no tool call',
      issues: [],
      rawOutputLength: content?.length ?? 0,
      retryMessages: [
        ...echo(content),
        { role: 'user', content: `${choiceInstruction(choice)} Answer with a tool call.` },
      ],
    };
  }

  const known = new Set(tools.map((t) => t.name));
  const requests: ToolCallRequest[] = [];
  // Per call: the problem to feed back (for the model) and the issue to report (no model content).
  const problems = new Map<string, { feedback: string; issue: OutputIssue }>();
  calls.forEach((call, index) => {
    const path = `tool_calls.${index}`;
    if (call.type !== 'function') {
      problems.set(call.id, {
        feedback: 'Only function tools are available.',
        issue: { path, message: 'unsupported tool call type' },
      });
      return;
    }
    const name = call.function.name;
    if (!known.has(name)) {
      problems.set(call.id, {
        feedback: `There is no tool named "${name}". Available tools: ${[...known].join(', ')}.`,
        issue: { path, message: 'call to an unknown tool' },
      });
      return;
    }
    if (typeof choice === 'object' && name !== choice.name) {
      problems.set(call.id, {
        feedback: choiceInstruction(choice),
        issue: { path, message: `call to a tool other than the required "${choice.name}"` },
      });
      return;
    }
    const args = parseArguments(call.function.arguments);
    if (!args.ok) {
      const detail = args.detail ? ` (${args.detail})` : '';
      problems.set(call.id, {
        feedback: `Invalid call: ${args.problem}${detail}.`,
        issue: { path, message: args.problem },
      });
      return;
    }
    requests.push({ id: call.id, name, arguments: args.value });
  });

  if (problems.size === 0) return { ok: true, value: { content, toolCalls: requests } };

  // The provider requires a tool message for every call id of the echoed assistant turn.
  const toolMessages: ChatCompletionMessageParam[] = calls.map((call) => ({
    role: 'tool',
    tool_call_id: call.id,
    content:
      problems.get(call.id)?.feedback ??
      'Not executed because another call in the same answer was invalid. Call it again if it is still needed.',
  }));
  return {
    ok: false,
    reason: 'invalid tool call',
    issues: [...problems.values()].map((p) => p.issue),
    rawOutputLength: calls.reduce(
      (n, c) => n + (c.type === 'function' ? c.function.arguments.length : 0),
      content?.length ?? 0,
    ),
    retryMessages: [{ role: 'assistant', content, tool_calls: calls }, ...toolMessages],
  };
}
