import type { PendingInteraction, TraceEvent } from '@novelrag/contracts';
import { api, type PublicGoal } from '../api';
import { badge, clear, field, h } from '../dom';
import { FINAL_KINDS, connectionLabel, followTrace } from '../live';
import type { SseState } from '../sse';
import { AnswerPanel } from './answer-panel';
import { action, errorBox } from './common';
import { markParallel, timelineEntry } from './timeline';

const TERMINAL = ['completed', 'failed', 'abandoned', 'cancelled'];
const REPLAY_STEP_MS = 60;

/**
 * One goal: its header (status, agent, thread, usage), the pending confirmation or question with answer buttons, cancel,
 * and the timeline of its trace: replayed from the TRACE stream, then live until the final event.
 */
export function goalDetailView(root: HTMLElement, goalId: string, signal: AbortSignal): void {
  const page = new GoalPage(goalId, signal);
  clear(root, page.header, page.pending, page.answer.el, page.toolbar, page.errors, page.timeline);
  void page.refresh().then(() =>
    followTrace(
      `/v1/goals/${encodeURIComponent(goalId)}/events`,
      signal,
      ({ event }) => page.add(event),
      (state, detail) => page.connection(state, detail),
      (delta) => page.answer.delta(delta),
    ),
  );
}

class GoalPage {
  readonly header = h('div', { class: 'goal-header' });
  readonly pending = h('div', { class: 'pending', 'data-testid': 'pending' });
  readonly timeline = h('ol', { class: 'timeline', 'data-testid': 'timeline' });
  readonly errors = h('div');
  /** A `rag` or `assistant` goal's answer, streamed then final (empty for the other kinds). */
  readonly answer = new AnswerPanel();
  private readonly conn = h('span', { class: 'conn', 'data-testid': 'trace-state' }, 'connecting…');
  private readonly replayButton = h('button', { type: 'button', disabled: true }, 'Replay');
  readonly toolbar = h('div', { class: 'toolbar' }, h('h3', {}, 'Timeline'), this.replayButton, this.conn);
  private readonly entries: { event: TraceEvent; el: HTMLElement }[] = [];
  private ended = false;
  /** Interactions the trace says are over: never offered again, whatever an older goal read still shows. */
  private readonly settled = new Set<string>();
  /** Numbers the refreshes: only the newest one renders (an older reply may arrive last and be stale). */
  private refreshes = 0;

  constructor(
    private readonly goalId: string,
    private readonly signal: AbortSignal,
  ) {
    this.replayButton.addEventListener('click', () => void this.replay());
  }

  async refresh(): Promise<void> {
    const seq = ++this.refreshes;
    try {
      const goal = await api.goal(this.goalId);
      if (this.signal.aborted || seq !== this.refreshes) return;
      this.renderHeader(goal);
      this.renderPending(goal.pendingInteraction);
    } catch (err) {
      clear(this.errors, errorBox(err));
    }
  }

  add(event: TraceEvent): void {
    const el = timelineEntry(event);
    this.entries.push({ event, el });
    this.timeline.append(el);
    if (event.kind === 'llm.call') markParallel(this.entries.slice(-2));
    if (event.kind === 'rag.answer') this.answer.answer(event);
    if (event.kind === 'assistant.output') this.answer.assistantAnswer(event);
    if (event.kind === 'interaction.requested') this.renderPending(event.interaction);
    if (event.kind === 'interaction.answered' || event.kind === 'interaction.timed_out') {
      this.settled.add(event.interactionId);
      this.renderPending(undefined);
    }
    if (
      event.kind === 'goal.status_changed' ||
      event.kind === 'operation.outcome' ||
      FINAL_KINDS.includes(event.kind)
    )
      void this.refresh();
  }

  connection(state: SseState, detail?: string): void {
    this.conn.textContent = `trace: ${connectionLabel(state, detail)}`;
    if (state === 'ended') {
      this.ended = true;
      this.replayButton.disabled = false;
      void this.refresh();
    }
    if (state === 'failed' && !this.ended)
      clear(this.errors, errorBox(new Error(detail ?? 'the trace stream failed')));
  }

  /** Shows the recorded timeline again, entry by entry (a finished goal's pursuit replayed from its trace). */
  private async replay(): Promise<void> {
    this.replayButton.disabled = true;
    clear(this.timeline);
    for (const { el } of this.entries) {
      if (this.signal.aborted) return;
      this.timeline.append(el);
      el.scrollIntoView({ block: 'nearest' });
      await new Promise((r) => setTimeout(r, REPLAY_STEP_MS));
    }
    this.replayButton.disabled = false;
  }

  private renderHeader(g: PublicGoal): void {
    const agent = (g as { agent?: string }).agent ?? 'novelrag';
    const terminal = TERMINAL.includes(g.status);
    const cancel = () => api.cancel(this.goalId).then(() => this.refresh());
    clear(
      this.header,
      h('h2', {}, g.goal ?? g.request ?? g.goalId),
      h(
        'div',
        { class: 'meta' },
        h('span', { 'data-testid': 'goal-status' }, badge(g.status)),
        h('span', { class: 'mono' }, g.goalId),
        h('span', {}, `agent ${agent}`),
        h('span', {}, `thread ${g.threadId}`),
        h('span', {}, `${g.steps.length} steps`),
        h('span', {}, `${g.usage.totalTokens.toLocaleString()} tokens`),
        g.cancelRequested && !terminal ? badge('cancel requested', 'pending') : null,
        terminal ? null : action('Cancel goal', cancel, { class: 'danger' }),
      ),
      g.request && g.goal ? field('Request', g.request) : null,
      g.outcome
        ? h(
            'div',
            { class: 'outcome', 'data-testid': 'outcome' },
            field('Outcome', g.outcome.status),
            field('Response', g.outcome.response),
            field('Reason', g.outcome.reason),
          )
        : null,
    );
  }

  /** The question waiting for the human, with its buttons; nothing once it has an answer (stored or traced). */
  private renderPending(p: PendingInteraction | undefined): void {
    if (!p || p.answer !== undefined || this.settled.has(p.interactionId)) return clear(this.pending);
    if (this.pending.querySelector(`[data-interaction="${p.interactionId}"]`)) return; // shown: keep its buttons
    const answer = (body: { approved: boolean } | { text: string }) =>
      api.answer(this.goalId, p.interactionId, body).then(() => this.refresh());
    const text = h('textarea', { rows: 3, placeholder: 'Your answer', 'aria-label': 'answer' });
    const decline = action('Decline', () => answer({ approved: false }));
    const buttons =
      p.kind === 'confirm'
        ? [action('Approve', () => answer({ approved: true }), { class: 'primary' }), decline]
        : [text, action('Send answer', () => answer({ text: text.value }), { class: 'primary' }), decline];
    clear(
      this.pending,
      h(
        'div',
        { class: 'card pending-card', 'data-interaction': p.interactionId },
        h('b', {}, p.kind === 'confirm' ? `${p.tool} asks for confirmation` : `${p.tool} asks`),
        h('p', { class: 'question' }, p.kind === 'confirm' ? p.message : p.prompt),
        h('div', { class: 'buttons' }, buttons),
        h('div', { class: 'muted' }, `expires ${new Date(p.expiresAt).toLocaleString()}`),
      ),
    );
  }
}
