// The assistant's checkpointed state (GoalRecord.agentState) and the views its prompts and trace show of it.
import type { OperationOutcome } from '@novelrag/agenturn';
import {
  AssistantCheckpoint,
  type AssistantTask,
  type AssistantTaskView,
  type GoalRecord,
} from '@novelrag/contracts';

/** What a tool result keeps in a prompt (the full result stays in the step and the trace). */
export const RESULT_CHARS_IN_PROMPT = 4_000;

export function initialState(): AssistantCheckpoint {
  return { kind: 'assistant', state: 'idle', round: 0, plan: [], tasks: [] };
}

/** The checkpointed state of an assistant goal, or the initial one (first pursuit, or unreadable state). */
export function stateOf(record: Pick<GoalRecord, 'agentState'>): AssistantCheckpoint {
  const parsed = AssistantCheckpoint.safeParse(record.agentState);
  return parsed.success ? parsed.data : initialState();
}

export function taskView(task: AssistantTask): AssistantTaskView {
  return {
    id: task.id,
    tool: task.tool,
    status: task.status,
    ...(task.step === undefined ? {} : { step: task.step }),
    ...(task.input ? { input: task.input } : {}),
    ...(task.error ? { error: task.error } : {}),
  };
}

/** A finished task as the prompts show it. */
export interface ResultView {
  readonly tool: string;
  readonly instruction: string;
  readonly status: string;
  readonly result: string;
}

/** The finished tasks, oldest first, with their results read from the executed steps. */
export function resultViews(
  tasks: readonly AssistantTask[],
  steps: readonly OperationOutcome[],
): ResultView[] {
  return tasks
    .filter((t) => t.status === 'done' || t.status === 'failed')
    .map((t) => {
      const step = t.step === undefined ? undefined : steps[t.step];
      const text =
        t.status === 'done'
          ? (step?.result ?? '')
          : (t.error?.message ?? step?.errorMessage ?? 'the call failed');
      return {
        tool: t.tool,
        instruction: t.instruction,
        status: t.status === 'done' ? 'ok' : 'failed',
        result: clip(text),
      };
    });
}

function clip(text: string): string {
  return text.length <= RESULT_CHARS_IN_PROMPT
    ? text
    : `${text.slice(0, RESULT_CHARS_IN_PROMPT)} … [${text.length - RESULT_CHARS_IN_PROMPT} more characters]`;
}
