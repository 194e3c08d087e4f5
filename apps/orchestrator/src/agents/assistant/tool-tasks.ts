// The assistant's tool tasks: created from a thought, given inputs by the model (validated, repaired), then run all at
// once through the pursuit's executor, each as its own step (its own invocation id).
import { type OperationOutcome, operationPlan } from '@novelrag/agenturn';
import {
  type AssistantCheckpoint,
  type AssistantTask,
  type AssistantThought,
  MAX_LABEL_CHARS,
  ToolName,
  errorEnvelope,
} from '@novelrag/contracts';
import { envelopeOf, toJsonObject } from '../../pursuit/records';
import type { AgentContext } from '../agent-kind';
import type { AssistantPrompts, PromptScene } from './assistant-prompts';
import { taskView } from './assistant-state';

/** The tasks after a parallel run and the steps they ran as (in step order). */
export interface TaskRun {
  readonly state: AssistantCheckpoint;
  readonly outcomes: readonly OperationOutcome[];
}

export class ToolTasks {
  constructor(
    private readonly ctx: AgentContext,
    private readonly prompts: AssistantPrompts,
    private readonly signal: AbortSignal,
  ) {}

  /** The round's tasks; one naming a tool that is not offered (even after a discovery) fails without a call. */
  async create(planned: AssistantThought['tasks'], round: number): Promise<AssistantTask[]> {
    const missing = planned.map((t) => t.tool_name).filter((name) => !this.callable(name));
    if (missing.length > 0) await this.ctx.findTools([...new Set(missing)]);
    return planned.map((t, i) => {
      const task: AssistantTask = {
        id: `r${round}-t${i + 1}`,
        round,
        tool: t.tool_name.trim().slice(0, MAX_LABEL_CHARS) || '(none)',
        instruction: t.tool_instruction,
        status: 'pending',
      };
      if (this.callable(t.tool_name)) return task;
      const error = errorEnvelope('TOOL_NOT_FOUND', `there is no callable tool named "${task.tool}"`);
      return { ...task, status: 'failed', error };
    });
  }

  /**
   * Gives every pending task of the round its input (the model calls run in parallel) and numbers the ones ready to
   * run as the steps after `firstStep`, in task order. A task whose input stayed invalid fails with the reason.
   */
  async prepare(
    state: AssistantCheckpoint,
    firstStep: number,
    scene: PromptScene,
  ): Promise<{ state: AssistantCheckpoint }> {
    const prepared = await Promise.all(
      state.tasks.map(async (task): Promise<AssistantTask> => {
        if (task.round !== state.round || task.status !== 'pending') return task;
        const tool = this.ctx.tools.get(task.tool);
        if (tool === undefined)
          return {
            ...task,
            status: 'failed',
            error: errorEnvelope('TOOL_NOT_FOUND', `no tool ${task.tool}`),
          };
        const input = await this.prompts.toolInput(tool, task.instruction, scene, this.signal);
        if (input.ok) return { ...task, input: toJsonObject(input.input) };
        const message = `no valid input for ${task.tool}: ${input.problem}`;
        return { ...task, status: 'failed', error: errorEnvelope('MODEL_OUTPUT_INVALID', message) };
      }),
    );
    let next = firstStep + prepared.filter((t) => t.round === state.round && t.status === 'running').length;
    const tasks = prepared.map((task): AssistantTask => {
      if (task.round !== state.round || task.status !== 'pending' || !task.input) return task;
      return { ...task, status: 'running', step: next++ };
    });
    return { state: { ...state, tasks } };
  }

  /**
   * Runs the round's running tasks at once. They are dispatched in step order, so the executor numbers them (and
   * derives their invocation ids) exactly as the checkpoint does: a resumed pursuit re-sends each under the same id.
   */
  async run(state: AssistantCheckpoint, firstStep: number): Promise<TaskRun | 'cancelled'> {
    const running = state.tasks
      .filter((t) => t.round === state.round && t.status === 'running')
      .sort((a, b) => (a.step ?? 0) - (b.step ?? 0));
    running.forEach((task, i) => {
      if (task.step !== firstStep + i)
        throw new Error(`task ${task.id} is numbered step ${task.step}, expected ${firstStep + i}`);
    });
    this.ctx.emit({
      kind: 'assistant.tools',
      round: state.round,
      phase: 'running',
      tasks: running.map(taskView),
    });
    const outcomes = await Promise.all(
      running.map((task) =>
        this.ctx.executor.execute(
          operationPlan(task.tool, task.input ?? {}, task.instruction),
          this.ctx.execution,
          this.signal,
        ),
      ),
    );
    if (this.signal.aborted) return 'cancelled';
    const ended = new Map(running.map((task, i) => [task.id, endOf(task, outcomes[i] as OperationOutcome)]));
    const tasks = state.tasks.map((t) => ended.get(t.id) ?? t);
    this.ctx.emit({
      kind: 'assistant.tools',
      round: state.round,
      phase: 'finished',
      tasks: running.map((t) => taskView(ended.get(t.id) ?? t)),
    });
    return { state: { ...state, tasks }, outcomes };
  }

  private callable(name: string): boolean {
    return ToolName.safeParse(name).success && this.ctx.tools.isAvailable(name);
  }
}

function endOf(task: AssistantTask, outcome: OperationOutcome): AssistantTask {
  if (outcome.status === 'success') return { ...task, status: 'done' };
  return {
    ...task,
    status: 'failed',
    error: envelopeOf(outcome.errorCode, outcome.errorMessage ?? outcome.status),
  };
}
