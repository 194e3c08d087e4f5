// One pursuit of an `assistant` goal: the state machine idle → thinking → tool_calling → outputting → completed (or
// error), checkpointed after every state so a resumed pursuit goes on from the last one.
import {
  type ErrorInfo,
  type MemoryPort,
  type OperationOutcome,
  type PursuitOutcome,
  type PursuitStatus,
  resolution,
  toErrorInfo,
} from '@novelrag/agenturn';
import {
  type AssistantCheckpoint,
  type AssistantFollowUp,
  type AssistantStateName,
  type AssistantThought,
  type ErrorEnvelope,
  errorEnvelope,
} from '@novelrag/contracts';
import { ModelCalls } from '../../loop';
import { envelopeOf } from '../../pursuit/records';
import type { AgentContext } from '../agent-kind';
import { type AnswerDeltaSink, NO_DELTAS } from '../answer-stream';
import { AssistantPrompts, type PromptScene } from './assistant-prompts';
import { resultViews, stateOf } from './assistant-state';
import { ToolTasks } from './tool-tasks';

export interface AssistantSettings {
  /** Thinking rounds before the answer is forced from what is known. */
  readonly maxRounds: number;
  /** Tool tasks one thinking round may start (they run in parallel); extra ones are dropped. */
  readonly maxParallelTools: number;
  /** Long-term memory of the thread (absent: the assistant remembers only the thread's recent goals). */
  readonly memory?: MemoryPort;
  /** Where the answer's pieces go while it is written (absent: nowhere, the whole answer is in the trace). */
  readonly deltas?: AnswerDeltaSink;
}

/** An error that moves the assistant to `error` with a coded reason. */
export class AssistantError extends Error {
  constructor(readonly envelope: ErrorEnvelope) {
    super(envelope.message);
  }
}

/** Longest delay `setTimeout` accepts. */
const MAX_TIMER_MS = 2_147_483_647;

interface Remembered {
  readonly summary: string | null;
  readonly memories: readonly string[];
}

export class AssistantRun {
  state: AssistantCheckpoint;
  private readonly steps: OperationOutcome[];
  private readonly prompts: AssistantPrompts;
  private readonly tasks: ToolTasks;
  private remembered: Remembered | undefined;
  /** Aborted when the goal's wall-clock budget runs out. */
  private readonly budget = new AbortController();
  /** The goal's stop signal and the wall-clock budget. */
  private readonly signal: AbortSignal;

  constructor(
    private readonly ctx: AgentContext,
    private readonly settings: AssistantSettings,
  ) {
    this.state = stateOf(ctx.resume.record);
    this.steps = [...ctx.resume.executedSteps];
    this.prompts = new AssistantPrompts(
      new ModelCalls(ctx.model, ctx.renderer, ctx.trace, ctx.lang),
      ctx.lang,
    );
    this.signal = AbortSignal.any([ctx.signal, this.budget.signal]);
    this.tasks = new ToolTasks(ctx, this.prompts, this.signal);
  }

  /** Runs the state machine to `completed` or `error` (or a stop). Never rejects. */
  async pursue(): Promise<PursuitOutcome> {
    const { startedAt, wallClockMs } = this.ctx.limits;
    const left = Math.max(0, startedAt + wallClockMs - Date.now());
    const timer = setTimeout(() => this.budget.abort(), Math.min(left, MAX_TIMER_MS));
    try {
      return await this.run();
    } finally {
      clearTimeout(timer);
    }
  }

  private async run(): Promise<PursuitOutcome> {
    try {
      for (;;) {
        if (this.signal.aborted) return this.stopped();
        switch (this.state.state) {
          case 'idle':
            await this.moveTo('thinking', {});
            break;
          case 'thinking':
            await this.think();
            break;
          case 'tool_calling':
            await this.callTools();
            break;
          case 'outputting':
            await this.output();
            break;
          case 'completed':
            return this.outcome('completed', 'answered');
          case 'error':
            return this.outcome('failed', this.state.error?.message ?? 'the assistant failed');
        }
      }
    } catch (err) {
      if (this.signal.aborted) return this.stopped();
      return this.failed(err);
    }
  }

  /** The goal's signal (cancel, budget, hand-back) wins over the wall clock. */
  private stopped(): PursuitOutcome {
    if (this.ctx.signal.aborted) return this.outcome('cancelled', 'Pursuit cancelled');
    const limit = `Wall-clock limit reached (limit ${this.ctx.limits.wallClockMs} ms)`;
    return { ...this.outcome('abandoned', limit), limitHit: 'wall_clock' };
  }

  /** A new thinking round: the plan and the next action; past the last round the answer is forced. */
  private async think(): Promise<void> {
    const round = this.state.round + 1;
    if (round > this.settings.maxRounds) {
      const instruction = `The ${this.settings.maxRounds} thinking rounds are used up: answer from what is known.`;
      await this.moveTo(
        'outputting',
        { outputInstruction: instruction, forced: true },
        'max thinking rounds',
      );
      return;
    }
    const scene = await this.scene();
    const thought = await this.prompts.think(
      {
        ...scene,
        plan: this.state.plan,
        round,
        maxRounds: this.settings.maxRounds,
        tools: this.ctx.tools.callable(),
      },
      this.signal,
    );
    this.emitPlan(round, thought);
    const tasks = thought.action === 'create_call_tool_tasks' ? thought.tasks : [];
    if (tasks.length === 0) {
      await this.moveTo('outputting', {
        round,
        plan: thought.plan,
        outputInstruction: thought.output_instruction,
      });
      return;
    }
    const budget = this.ctx.limits.maxSteps - this.steps.length;
    if (budget < Math.min(tasks.length, this.settings.maxParallelTools)) {
      const instruction = `The step budget is used up: answer from what is known. ${thought.output_instruction}`;
      await this.moveTo('outputting', {
        round,
        plan: thought.plan,
        outputInstruction: instruction,
        forced: true,
      });
      return;
    }
    const created = await this.tasks.create(tasks.slice(0, this.settings.maxParallelTools), round);
    await this.moveTo('tool_calling', {
      round,
      plan: thought.plan,
      tasks: [...this.state.tasks, ...created],
    });
  }

  /** Runs every pending task of the round in parallel; a failed call moves to `error`, otherwise back to thinking. */
  private async callTools(): Promise<void> {
    const scene = await this.scene();
    const prepared = await this.tasks.prepare(this.state, this.steps.length, scene);
    this.state = prepared.state;
    await this.ctx.checkpoints.save();
    const ran = await this.tasks.run(this.state, this.steps.length);
    if (ran === 'cancelled') return; // the loop sees the abort
    const before = [...this.steps];
    this.steps.push(...ran.outcomes);
    // A call that failed, or an input the model never got right, ends in `error`; a tool that does not exist is shown
    // to the next thinking round instead.
    const failed = ran.state.tasks.find(
      (t) =>
        t.round === this.state.round &&
        t.status === 'failed' &&
        (t.step !== undefined || t.error?.code === 'MODEL_OUTPUT_INVALID'),
    );
    const next: AssistantStateName = failed ? 'error' : 'thinking';
    const error = failed
      ? errorEnvelope(
          'TOOL_FAILED',
          `tool ${failed.tool} failed: ${failed.error?.message ?? 'no reason given'}`,
        )
      : undefined;
    const from = this.state.state;
    this.state = { ...ran.state, state: next, ...(error ? { error } : {}) };
    await this.ctx.checkpoints.steps(before, ran.outcomes);
    this.emitState(from, next, error?.message);
  }

  private async output(): Promise<void> {
    const scene = await this.scene();
    const forced = this.state.forced === true;
    const record = this.ctx.resume.record;
    const content = await this.prompts.answer(
      { ...scene, instruction: this.state.outputInstruction ?? 'Answer the request.', forced },
      { sink: this.settings.deltas ?? NO_DELTAS, goalId: record.goalId, attempt: record.attempts ?? 1 },
      this.signal,
    );
    const followUp = await this.followUp(scene, content);
    const suggestions = followUp.suggested_next_inputs.filter((s) => s.trim() !== '').slice(0, 6);
    this.ctx.emit({ kind: 'assistant.output', content, suggestions, forced });
    await this.remember(content, followUp.session_summary, followUp.facts);
    await this.moveTo('completed', { answer: { content, suggestions } });
  }

  /**
   * The follow-up of the written answer (suggestions, session summary, facts). The answer already reached the user: a
   * follow-up that fails (an invalid or unavailable model) is warned about and left empty, it does not fail the goal.
   */
  private async followUp(scene: PromptScene, content: string): Promise<AssistantFollowUp> {
    try {
      return await this.prompts.followUp(scene, content, this.signal);
    } catch (err) {
      if (this.signal.aborted) throw err;
      this.ctx.execution.warning(`No suggestions or summary for the answer (${toErrorInfo(err).code})`);
      return { suggested_next_inputs: [], session_summary: '', facts: [] };
    }
  }

  /** Moves to `to` with the changes, checkpoints, then traces the move. */
  private async moveTo(
    to: AssistantStateName,
    changes: Partial<AssistantCheckpoint>,
    reason?: string,
  ): Promise<void> {
    const from = this.state.state;
    this.state = { ...this.state, ...changes, state: to };
    await this.ctx.checkpoints.save();
    this.emitState(from, to, reason);
  }

  private emitState(from: AssistantStateName, to: AssistantStateName, reason?: string): void {
    this.ctx.emit({
      kind: 'assistant.state',
      from,
      to,
      round: this.state.round,
      ...(reason ? { reason: reason.slice(0, 2_000) } : {}),
    });
  }

  private emitPlan(round: number, thought: AssistantThought): void {
    this.ctx.emit({
      kind: 'assistant.plan',
      round,
      plan: thought.plan,
      action: thought.action,
      analysis: thought.analysis,
      tasks: thought.tasks.map((t) => ({ tool: t.tool_name, instruction: t.tool_instruction })),
    });
  }

  /** What the prompts show: the request, the thread, the memory and the results so far. */
  private async scene(): Promise<PromptScene> {
    const remembered = await this.recall();
    const { goal } = this.ctx;
    return {
      request: goal.source.kind === 'user' ? goal.source.request : goal.description,
      history: this.ctx.historyText,
      beliefs: this.ctx.beliefs,
      sessionSummary: remembered.summary,
      memories: remembered.memories,
      results: resultViews(this.state.tasks, this.steps),
    };
  }

  /** The thread's long-term memory, read once per pursuit; unreadable memory is warned about, not fatal. */
  private async recall(): Promise<Remembered> {
    if (this.remembered) return this.remembered;
    const { memory } = this.settings;
    const threadId = this.ctx.resume.record.threadId;
    let remembered: Remembered = { summary: null, memories: [] };
    if (memory) {
      try {
        const signal = this.signal;
        const [summary, items] = await Promise.all([
          memory.sessionSummary(threadId, signal),
          memory.retrieveRelevant(this.ctx.goal.description, threadId, { limit: 5, signal }),
        ]);
        remembered = { summary, memories: items.map((i) => i.text) };
      } catch (err) {
        if (this.signal.aborted) throw err;
        this.ctx.execution.warning(`Long-term memory could not be read (${toErrorInfo(err).code})`);
      }
    }
    this.remembered = remembered;
    return remembered;
  }

  private async remember(answer: string, summary: string, facts: readonly string[]): Promise<void> {
    const { memory } = this.settings;
    if (!memory) return;
    const record = this.ctx.resume.record;
    try {
      await memory.storeInteraction(
        {
          threadId: record.threadId,
          goalId: record.goalId,
          question: (await this.scene()).request,
          answer,
          ...(summary.trim() ? { summary } : {}),
          facts: facts.filter((f) => f.trim() !== ''),
        },
        this.signal,
      );
    } catch (err) {
      if (this.signal.aborted) throw err;
      this.ctx.execution.warning(`Long-term memory could not be updated (${toErrorInfo(err).code})`);
    }
  }

  /** An unexpected failure: moved to `error` with its code (the move checkpointed when the store allows). */
  private async failed(err: unknown): Promise<PursuitOutcome> {
    const info = err instanceof AssistantError ? err.envelope : toErrorInfo(err);
    const error = envelopeOf(info.code, info.message);
    const from = this.state.state;
    this.state = { ...this.state, state: 'error', error };
    await this.ctx.checkpoints.save().catch(() => undefined);
    this.emitState(from, 'error', error.message);
    return this.outcome('failed', error.message);
  }

  private outcome(status: PursuitStatus, reason: string): PursuitOutcome {
    const answer = this.state.answer;
    const error: ErrorInfo | undefined =
      status === 'failed' && this.state.error
        ? {
            code: this.state.error.code,
            message: this.state.error.message,
            retryable: this.state.error.retryable,
          }
        : undefined;
    const response =
      status === 'completed' && answer ? answer.content : `The assistant stopped (${status}): ${reason}`;
    return {
      goal: this.ctx.goal,
      status,
      reason,
      response,
      executedSteps: this.steps,
      resolution: status === 'completed' ? resolution('success', response, reason) : null,
      ...(error ? { error } : {}),
      resolvedAt: new Date().toISOString(),
    };
  }
}
