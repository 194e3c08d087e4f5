import { api, type GoalSummary, type SummaryFilters } from '../api';
import { badge, clear, duration, h, time } from '../dom';
import { PHASE_OF_KIND, connectionLabel, followTrace, type TraceItem } from '../live';
import { errorBox } from './common';
import { AGENT_LABELS } from './submit';

type GoalStatus = NonNullable<SummaryFilters['status']>;
type AgentKind = NonNullable<SummaryFilters['agent']>;

/** The status filter's choices (typed by the API document, so a new status cannot be forgotten here). */
const STATUS_LABELS: Record<GoalStatus, string> = {
  queued: 'queued',
  running: 'running',
  waiting_for_input: 'waiting for input',
  completed: 'completed',
  failed: 'failed',
  abandoned: 'abandoned',
  cancelled: 'cancelled',
};
const COLUMNS = ['Goal', 'Agent', 'Status', 'Phase', 'Steps', 'Tokens', 'Elapsed', 'Thread', 'Updated'];
/** The ops feed kinds the table listens to: those that move a goal's phase or status (no LLM calls, no output). */
const FEED_KINDS = [...Object.keys(PHASE_OF_KIND), 'goal.status_changed'];
/** Goals waiting in the queue publish no trace yet: the first page is also read again this often. */
const FIRST_PAGE_POLL_MS = 5_000;
/**
 * Trace events only mark the rows at once; the page's summaries are read again at most this often (one request however
 * many goals move, well inside the gateway's per-key rate limit).
 */
const REFRESH_AFTER_EVENTS_MS = 1_000;

interface Row {
  summary: GoalSummary;
  livePhase: string | null;
  readonly el: HTMLTableRowElement;
}
interface Filters {
  status: GoalStatus | '';
  agent: AgentKind | '';
  threadId: string;
  limit: number;
}

/** The live goals table: filters, cursor pagination, rows updated from the ops feed without a reload. */
export function goalsView(root: HTMLElement, signal: AbortSignal): void {
  const table = new GoalsTable(signal);
  const conn = h('span', { class: 'conn', 'data-testid': 'feed-state' }, 'connecting…');
  const status = h('select', { 'aria-label': 'status' }, [
    h('option', { value: '' }, 'any status'),
    ...Object.entries(STATUS_LABELS).map(([value, label]) => h('option', { value }, label)),
  ]);
  const agent = h('select', { 'aria-label': 'agent kind' }, [
    h('option', { value: '' }, 'any agent'),
    ...Object.keys(AGENT_LABELS).map((value) => h('option', { value }, value)),
  ]);
  const thread = h('input', { placeholder: 'thread id', 'aria-label': 'thread' });
  const limit = h(
    'select',
    { 'aria-label': 'page size' },
    [20, 50, 100].map((n) => h('option', { value: n }, `${n} / page`)),
  );
  const apply = () =>
    table.filter({
      // The selects offer only '' and the document's values (STATUS_LABELS, AGENT_LABELS).
      status: status.value as Filters['status'],
      agent: agent.value as Filters['agent'],
      threadId: thread.value.trim(),
      limit: Number(limit.value),
    });
  for (const input of [status, agent, thread, limit]) input.addEventListener('change', apply);
  clear(
    root,
    h(
      'div',
      { class: 'toolbar' },
      h('h2', {}, 'Goals'),
      status,
      agent,
      thread,
      limit,
      table.prev,
      table.next,
      table.info,
      conn,
    ),
    table.errors,
    h(
      'table',
      { class: 'goals', 'data-testid': 'goals-table' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          COLUMNS.map((c) => h('th', {}, c)),
        ),
      ),
      table.tbody,
    ),
  );
  const ticker = setInterval(() => table.tick(), 1_000);
  const poll = setInterval(() => table.pollFirstPage(), FIRST_PAGE_POLL_MS);
  signal.addEventListener('abort', () => {
    clearInterval(ticker);
    clearInterval(poll);
  });
  void table.load(0).then(() =>
    followTrace(
      `/v1/events?from=now&kinds=${FEED_KINDS.join(',')}`,
      signal,
      (item) => table.onEvent(item),
      (s, d) => {
        conn.textContent = `feed: ${connectionLabel(s, d)}`;
      },
    ),
  );
}

class GoalsTable {
  readonly tbody = h('tbody');
  readonly errors = h('div');
  readonly info = h('span', { class: 'muted' });
  readonly prev = h('button', { type: 'button', onclick: () => void this.load(this.page - 1) }, '← Newer');
  readonly next = h('button', { type: 'button', onclick: () => void this.load(this.page + 1) }, 'Older →');
  private readonly rows = new Map<string, Row>();
  private readonly cursors: (string | undefined)[] = [undefined];
  private filters: Filters = { status: '', agent: '', threadId: '', limit: 20 };
  private page = 0;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly signal: AbortSignal) {
    signal.addEventListener('abort', () => clearTimeout(this.refreshTimer));
  }

  filter(filters: Filters): void {
    this.filters = filters;
    this.cursors.length = 1;
    void this.load(0);
  }

  async load(page: number): Promise<void> {
    if (page < 0 || page >= this.cursors.length) return;
    try {
      const { status, agent, threadId, limit } = this.filters;
      const cursor = this.cursors[page];
      const res = await api.summaries({
        limit,
        ...(status ? { status } : {}),
        ...(agent ? { agent } : {}),
        ...(threadId ? { threadId } : {}),
        ...(cursor ? { cursor } : {}),
      });
      if (this.signal.aborted) return;
      this.page = page;
      if (res.nextCursor && this.cursors.length === page + 1) this.cursors.push(res.nextCursor);
      this.render(res.goals, res.nextCursor !== null);
      clear(this.errors);
    } catch (err) {
      clear(this.errors, errorBox(err));
    }
  }

  pollFirstPage(): void {
    if (this.page === 0 && !document.hidden) void this.load(0);
  }

  /** A goal's trace event: its row shows the phase at once; the page is read again soon (batched). */
  onEvent({ event }: TraceItem): void {
    const row = this.rows.get(event.goalId);
    if (row) {
      row.livePhase = PHASE_OF_KIND[event.kind] ?? row.livePhase;
      fill(row);
    } else if (event.kind !== 'goal.accepted' || this.page !== 0) return; // not on this page
    this.refreshTimer ??= setTimeout(() => {
      this.refreshTimer = undefined;
      void this.load(this.page);
    }, REFRESH_AFTER_EVENTS_MS);
  }

  tick(): void {
    for (const row of this.rows.values()) if (!row.summary.finishedAt) fill(row);
  }

  private render(goals: GoalSummary[], more: boolean): void {
    const kept = new Map(this.rows);
    this.rows.clear();
    const rows = goals.map((summary) => {
      const row: Row = { summary, livePhase: kept.get(summary.goalId)?.livePhase ?? null, el: h('tr') };
      this.rows.set(summary.goalId, row);
      fill(row);
      return row.el;
    });
    clear(
      this.tbody,
      rows.length
        ? rows
        : h('tr', {}, h('td', { colspan: COLUMNS.length, class: 'muted' }, 'No goals yet. Submit one.')),
    );
    this.prev.disabled = this.page === 0;
    this.next.disabled = !more;
    this.info.textContent = `page ${this.page + 1}`;
  }
}

function fill(row: Row): void {
  const s = row.summary;
  const ended = s.finishedAt !== null;
  const elapsed = (ended ? Date.parse(s.finishedAt ?? '') : Date.now()) - Date.parse(s.createdAt);
  const phase = ended ? s.phase : (row.livePhase ?? s.phase);
  row.el.dataset['goalId'] = s.goalId;
  row.el.dataset['status'] = s.status;
  clear(
    row.el,
    h(
      'td',
      { class: 'title' },
      h('a', { href: `#/goals/${s.goalId}` }, s.title || '(untitled)'),
      h('div', { class: 'muted mono' }, s.goalId),
    ),
    h('td', {}, s.agent),
    h('td', {}, badge(s.status), s.pending ? badge(`${s.pending.kind} pending`, 'pending') : null),
    h('td', { 'data-testid': 'phase' }, phase, s.tool ? h('div', { class: 'muted' }, s.tool) : null),
    h('td', { class: 'num' }, s.steps),
    h('td', { class: 'num' }, s.totalTokens.toLocaleString()),
    h('td', { class: 'num' }, duration(elapsed)),
    h('td', { class: 'mono' }, s.threadId === s.goalId ? '—' : s.threadId),
    h('td', {}, time(s.updatedAt)),
  );
}
