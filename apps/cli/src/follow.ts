import {
  FINAL_TRACE_KINDS,
  type PendingInteraction,
  TraceEvent,
  isTerminalStatus,
} from '@novelrag/contracts';
import { AnswerStream } from './answer-stream';
import { CliError } from './errors';
import type { GatewayClient } from './gateway-client';
import type { CliIo } from './io';
import { phaseOf, renderOutcome, renderTraceEvent } from './render/trace';
import { AnswerAck, PublicGoal } from './responses';
import { followSse } from './sse';

export type AnswerPolicy = 'ask' | 'approve' | 'decline';

export interface FollowOptions {
  readonly io: CliIo;
  readonly json: boolean;
  readonly verbose: boolean;
  readonly answers: AnswerPolicy;
  /** Bound on following the goal to its end. */
  readonly waitMs: number;
  /** Resume after this SSE id. */
  readonly lastEventId?: string;
  /** Extra hook for every parsed event (the demo's progress display). */
  readonly onEvent?: (event: TraceEvent) => void;
  /**
   * How often the goal record is polled as a safety net: a goal that is terminal on two polls in a row ends the
   * follow even if its final trace event never comes (e.g. cancelled while still queued). Default 5 s.
   */
  readonly pollMs?: number;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** The progress line: step, phase, elapsed time (a terminal only). */
class Progress {
  private phase = 'queued';
  private step = 0;
  private frame = 0;
  private readonly started = Date.now();
  private timer: NodeJS.Timeout | undefined;
  /** While a question is asked the status line must not overwrite the prompt. */
  paused = false;
  /** Nor the line of an answer being written. */
  answer: AnswerStream | undefined;

  constructor(private readonly io: CliIo) {
    if (io.interactive) {
      this.timer = setInterval(() => this.draw(), 120);
      this.timer.unref();
    }
  }

  update(event: TraceEvent): void {
    if (event.step !== undefined) this.step = event.step;
    const phase = event.kind === 'goal.status_changed' ? event.to : phaseOf(event);
    if (phase) this.phase = phase;
  }

  draw(): void {
    if (this.paused || this.answer?.writing) return;
    const seconds = ((Date.now() - this.started) / 1000).toFixed(0);
    this.frame = (this.frame + 1) % SPINNER.length;
    this.io.status(
      this.io.style.dim(`${SPINNER[this.frame]} step ${this.step + 1} · ${this.phase} · ${seconds}s`),
    );
  }

  stop(): void {
    clearInterval(this.timer);
    this.io.status('');
  }
}

/**
 * Follows one goal's trace (replayed from the start or after `lastEventId`, then live) until its final event,
 * rendering each event, answering interaction prompts per the policy, and returns the goal as stored at the end.
 */
export async function followGoal(
  client: GatewayClient,
  goalId: string,
  options: FollowOptions,
): Promise<PublicGoal> {
  const { io, json } = options;
  const wait = AbortSignal.timeout(options.waitMs);
  const ended = new AbortController();
  const progress = json ? undefined : new Progress(io);
  // The answer of a rag or assistant goal as it is written (pieces not kept by the trace: printed, then the final events).
  const answer = json ? undefined : new AnswerStream(io);
  if (progress) progress.answer = answer;
  let sawFinal = false;
  const watchdog = watchTerminal(client, goalId, options.pollMs ?? 5_000, () => ended.abort());
  try {
    for await (const message of followSse(client, `/v1/goals/${encodeURIComponent(goalId)}/events`, {
      signal: AbortSignal.any([wait, ended.signal]),
      ...(options.lastEventId !== undefined ? { lastEventId: options.lastEventId } : {}),
      onReconnect: (attempt, last, reason) =>
        io.err(
          io.style.dim(
            `(event stream lost: ${reason}; reconnecting #${attempt} after event ${last ?? 'none'})`,
          ),
        ),
    })) {
      if (message.event === 'answer.delta' && answer) {
        answer.push(message.data);
        continue;
      }
      let data: unknown;
      try {
        data = JSON.parse(message.data);
      } catch {
        data = undefined;
      }
      const parsed = TraceEvent.safeParse(data);
      if (json)
        io.out(JSON.stringify({ type: 'event', id: message.id ?? null, event: data ?? message.data }));
      if (!parsed.success) continue; // a newer gateway's event kind: ignored, never fatal
      const event = parsed.data;
      progress?.update(event);
      options.onEvent?.(event);
      if (!json) {
        const line = renderTraceEvent(event, { style: io.style, verbose: options.verbose });
        if (line !== undefined) answer?.print(line, closesAnswer(event));
      }
      if (event.kind === 'interaction.requested') {
        if (progress) progress.paused = true;
        try {
          await answerInteraction(client, goalId, event.interaction, options, wait);
        } finally {
          if (progress) progress.paused = false;
        }
      }
      if (FINAL_TRACE_KINDS.includes(event.kind)) {
        sawFinal = true;
        break;
      }
    }
  } catch (err) {
    if (!ended.signal.aborted || wait.aborted) throw err;
  } finally {
    clearInterval(watchdog);
    answer?.end();
    progress?.stop();
  }
  const goal = await client.request(`/v1/goals/${encodeURIComponent(goalId)}`, PublicGoal);
  if (json) io.out(JSON.stringify({ type: 'goal', goal }));
  else if (!sawFinal && goal.outcome) io.out(renderOutcome(goal.outcome, io.style));
  if (!isTerminalStatus(goal.status))
    throw new CliError(
      'protocol',
      'NOT_TERMINAL',
      `the event stream of ${goalId} ended while the goal is ${goal.status}`,
    );
  return goal;
}

/** Whether a trace event ends the answer being written (its line is printed after the answer, not held). */
const closesAnswer = (event: TraceEvent) =>
  event.kind === 'rag.answer' ||
  event.kind === 'assistant.output' ||
  event.kind === 'interaction.requested' ||
  FINAL_TRACE_KINDS.includes(event.kind);

/** Polls the goal; calls `onEnded` once it was terminal on two polls in a row. */
function watchTerminal(
  client: GatewayClient,
  goalId: string,
  pollMs: number,
  onEnded: () => void,
): NodeJS.Timeout {
  let terminalPolls = 0;
  const timer = setInterval(() => {
    client.request(`/v1/goals/${encodeURIComponent(goalId)}`, PublicGoal).then(
      (goal) => {
        terminalPolls = isTerminalStatus(goal.status) ? terminalPolls + 1 : 0;
        if (terminalPolls >= 2) onEnded();
      },
      () => undefined, // the stream reports connectivity problems itself
    );
  }, pollMs);
  timer.unref();
  return timer;
}

/** Answers a pending confirmation/question per the policy; skips interactions already answered (replays). */
async function answerInteraction(
  client: GatewayClient,
  goalId: string,
  interaction: PendingInteraction,
  options: FollowOptions,
  signal: AbortSignal,
): Promise<void> {
  const { io } = options;
  const route = `/v1/goals/${encodeURIComponent(goalId)}`;
  const current = await client.request(route, PublicGoal);
  if (current.pendingInteraction?.interactionId !== interaction.interactionId) return; // answered already
  let body: { approved: boolean } | { text: string } | undefined;
  if (options.answers === 'approve') body = interaction.kind === 'confirm' ? { approved: true } : undefined;
  else if (options.answers === 'decline') body = { approved: false };
  if (body === undefined && io.interactive && !options.json) {
    if (interaction.kind === 'confirm') {
      const reply = await io.ask(io.style.yellow('Approve? [y/N] '), signal);
      body = { approved: /^\s*y(es)?\s*$/i.test(reply ?? '') };
    } else {
      const reply = await io.ask(io.style.yellow('Your answer (empty declines): '), signal);
      body = reply?.trim() ? { text: reply.trim() } : { approved: false };
    }
  }
  if (body === undefined) {
    io.err(
      `waiting for an answer to ${interaction.interactionId}: novelrag answer ${goalId} ${interaction.interactionId} ${
        interaction.kind === 'confirm' ? '--approve | --decline' : '--text "…"'
      }`,
    );
    return;
  }
  try {
    await client.request(
      `${route}/interactions/${encodeURIComponent(interaction.interactionId)}`,
      AnswerAck,
      {
        method: 'POST',
        body,
      },
    );
    if (!options.json)
      io.out(
        io.style.dim(`(answered: ${'approved' in body ? (body.approved ? 'approve' : 'decline') : 'text'})`),
      );
  } catch (err) {
    if (err instanceof CliError && err.code === 'INTERACTION_NOT_PENDING') {
      io.err(io.style.dim(`(${interaction.interactionId} was answered or expired meanwhile)`));
      return;
    }
    throw err;
  }
}
