import { z } from 'zod';
import { JsonObject, Label, Text } from './common';
import { ErrorEnvelope } from './errors';

/**
 * The `assistant` agent kind: a state machine that plans, runs all pending tool tasks at once, and answers with
 * suggested next inputs. The model-facing schemas (snake_case) stay inside the OpenAI strict subset (every field
 * required, no records); the checkpoint and trace shapes are the orchestrator's own.
 */

/** Where the assistant stands. `completed` and `error` end a pursuit. */
export const AssistantStateName = z.enum([
  'idle',
  'thinking',
  'tool_calling',
  'outputting',
  'completed',
  'error',
]);
export type AssistantStateName = z.infer<typeof AssistantStateName>;

/** The model's next action after thinking. */
export const AssistantAction = z.enum(['create_call_tool_tasks', 'output_content']);
export type AssistantAction = z.infer<typeof AssistantAction>;

/** What `thinkPrompt` returns: the updated short-term plan and the next action. */
export const AssistantThought = z.object({
  analysis: z.string().describe('What is known, what is missing, and why the next action follows'),
  plan: z.array(z.string()).describe('The execution plan, one step per entry, updated with what was learnt'),
  action: AssistantAction.describe('Run tool tasks now, or write the answer'),
  tasks: z
    .array(
      z.object({
        tool_name: z.string().describe('The tool to call (one of the listed tools)'),
        tool_instruction: z.string().describe('What the call must find or do, in plain words'),
      }),
    )
    .describe('Independent tool calls to run at the same time (empty when the action is output_content)'),
  output_instruction: z.string().describe('What the answer must cover (empty when tools are called)'),
});
export type AssistantThought = z.infer<typeof AssistantThought>;

/**
 * What the follow-up of `outputContentPrompt` returns once the answer has been streamed: what the user may ask next,
 * and what to remember.
 */
export const AssistantFollowUp = z.object({
  suggested_next_inputs: z
    .array(z.string())
    .describe('Two to four short follow-up requests the user may send'),
  session_summary: z
    .string()
    .describe('A short summary of the conversation so far, replacing the previous one'),
  facts: z.array(z.string()).describe('Lasting facts or preferences the user stated (empty when none)'),
});
export type AssistantFollowUp = z.infer<typeof AssistantFollowUp>;

export const AssistantTaskStatus = z.enum(['pending', 'running', 'done', 'failed']);
export type AssistantTaskStatus = z.infer<typeof AssistantTaskStatus>;

/** One tool call task. `step` is the pursuit step (and invocation) it ran as; its result lives in that step. */
export const AssistantTask = z.strictObject({
  id: Label,
  round: z.number().int().min(1),
  /** The tool as the model named it (a task naming no known tool fails without being dispatched). */
  tool: Label,
  instruction: Text,
  status: AssistantTaskStatus,
  input: JsonObject.optional(),
  step: z.number().int().nonnegative().optional(),
  error: ErrorEnvelope.optional(),
});
export type AssistantTask = z.infer<typeof AssistantTask>;

/** The assistant's checkpoint (`GoalRecord.agentState` of an assistant goal), written after every state. */
export const AssistantCheckpoint = z.strictObject({
  kind: z.literal('assistant'),
  state: AssistantStateName,
  /** Thinking rounds started so far. */
  round: z.number().int().nonnegative(),
  /** The short-term plan. */
  plan: z.array(Text),
  tasks: z.array(AssistantTask),
  /** The answer's brief from the last thought (or the reason output was forced). */
  outputInstruction: Text.optional(),
  forced: z.boolean().optional(),
  answer: z.strictObject({ content: Text, suggestions: z.array(Text) }).optional(),
  error: ErrorEnvelope.optional(),
});
export type AssistantCheckpoint = z.infer<typeof AssistantCheckpoint>;

/** A task as the trace shows it. */
export const AssistantTaskView = z.strictObject({
  id: Label,
  tool: Label,
  status: AssistantTaskStatus,
  step: z.number().int().nonnegative().optional(),
  input: JsonObject.optional(),
  error: ErrorEnvelope.optional(),
});
export type AssistantTaskView = z.infer<typeof AssistantTaskView>;
