import type {
  AspectsListReply,
  BacklogListReply,
  FindReply,
  OperationsListReply,
  SearchReply,
  UndoRedoReply,
} from '@novelrag/contracts';
import { stringify } from 'yaml';
import type { GoalPage, PublicGoal, ToolList } from '../responses';
import { compactJson, oneLine, type Style } from './text';

/** YAML is the most readable dump of nested resource data (and keeps 余归 as is). */
export function yaml(value: unknown): string {
  return stringify(value, { lineWidth: 110 }).trimEnd();
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => displayWidth(r[i] ?? ''))));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) =>
        i === cells.length - 1 ? c : c + ' '.repeat(Math.max(0, (widths[i] ?? 0) - displayWidth(c))),
      )
      .join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/** Terminal columns: CJK characters take two. */
export function displayWidth(text: string): number {
  let w = 0;
  for (const ch of text)
    w +=
      /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/u.test(
        ch,
      )
        ? 2
        : 1;
  return w;
}

export function renderGoalList(page: GoalPage): string {
  if (page.goals.length === 0) return 'No goals.';
  const rows = page.goals.map((g) => [
    g.goalId,
    g.status,
    String(g.steps.length),
    g.updatedAt.replace('T', ' ').slice(0, 19),
    oneLine(g.request ?? g.goal ?? '', 60),
  ]);
  const text = table(['GOAL', 'STATUS', 'STEPS', 'UPDATED', 'REQUEST'], rows);
  return page.nextCursor ? `${text}\n(more: --cursor ${page.nextCursor})` : text;
}

export function renderGoal(goal: PublicGoal, s: Style): string {
  const lines = [
    `${s.bold(goal.goalId)}  ${goal.status}${goal.cancelRequested && goal.status !== 'cancelled' ? ' (cancel requested)' : ''}`,
    `thread:   ${goal.threadId}`,
  ];
  if (goal.request !== null) lines.push(`request:  ${goal.request}`);
  if (goal.goal !== null) lines.push(`goal:     ${goal.goal}`);
  if (goal.lang) lines.push(`lang:     ${goal.lang}`);
  lines.push(`created:  ${goal.createdAt}`, `updated:  ${goal.updatedAt}`);
  for (const step of goal.steps) {
    const outcome = step.outcome;
    const detail = outcome.status === 'success' ? (outcome.result ?? '') : (outcome.error?.message ?? '');
    lines.push(
      `step ${step.index}: ${step.plan.tool} ${compactJson(step.plan.params, 80)} → ${outcome.status}: ${oneLine(detail, 100)}`,
    );
  }
  const pending = goal.pendingInteraction;
  if (pending) {
    const question = pending.kind === 'confirm' ? pending.message : pending.prompt;
    lines.push(
      s.yellow(
        `waiting for ${pending.kind} ${pending.interactionId} (${pending.tool}): ${oneLine(question, 200)}`,
      ),
      s.dim(
        `  answer with: novelrag answer ${goal.goalId} ${pending.interactionId} ${pending.kind === 'confirm' ? '--approve | --decline' : '--text "…"'}`,
      ),
    );
  }
  if (goal.outcome) {
    lines.push(
      `outcome:  ${goal.outcome.status}${goal.outcome.resolutionStatus ? ` (${goal.outcome.resolutionStatus})` : ''}`,
    );
    if (goal.outcome.response) lines.push(goal.outcome.response);
    if (goal.outcome.reason) lines.push(s.dim(`reason: ${goal.outcome.reason}`));
  }
  lines.push(s.dim(`tokens:   ${goal.usage.totalTokens}`));
  return lines.join('\n');
}

export function renderFind(reply: FindReply): string {
  switch (reply.kind) {
    case 'root':
      return reply.aspects.length === 0
        ? 'The repository is empty (no aspects).'
        : table(
            ['ASPECT', 'DESCRIPTION'],
            reply.aspects.map((a) => [a.name, oneLine(a.description ?? '', 80)]),
          );
    case 'aspect':
      return `${yaml({ aspect: reply.aspect.name, description: reply.aspect.description ?? null, childrenKeys: reply.aspect.childrenKeys })}\nelements: ${reply.rootIds.map((id) => `${reply.uri}/${id}`).join(', ') || '—'}`;
    case 'element':
      return `${reply.uri}\n${yaml({ properties: reply.element.properties, relationships: reply.element.relationships, ...childrenOf(reply.element) })}`;
  }
}

function childrenOf(element: object): Record<string, unknown> {
  const children = (element as { children?: unknown }).children;
  return children && typeof children === 'object' && Object.keys(children).length > 0 ? { children } : {};
}

export function renderSearch(reply: SearchReply): string {
  if (reply.hits.length === 0) return 'No match.';
  return reply.hits
    .map(
      (h, i) => `${i + 1}. ${h.uri}  ${`(score ${h.score.toFixed(3)})`}\n   ${compactJson(h.element, 150)}`,
    )
    .join('\n');
}

export function renderAspects(reply: AspectsListReply): string {
  if (reply.aspects.length === 0) return 'No aspects yet.';
  return table(
    ['ASPECT', 'CHILDREN KEYS', 'DESCRIPTION'],
    reply.aspects.map((a) => [a.name, a.childrenKeys.join(',') || '—', oneLine(a.description ?? '', 70)]),
  );
}

export function renderTools(reply: ToolList): string {
  const lines: string[] = [];
  if (reply.tools.length === 0) lines.push('No tools on the bus (is a tool-runner running?).');
  else
    lines.push(
      table(
        ['TOOL', 'SERVICE', 'INSTANCES', 'FLAGS', 'DESCRIPTION'],
        reply.tools.map((t) => [
          t.name,
          t.service ? `${t.service.name}@${t.service.version}` : '—',
          String(t.instances),
          [t.metadata.readOnly ? 'read-only' : 'writes', t.metadata.destructive ? 'destructive' : '']
            .filter(Boolean)
            .join(','),
          oneLine(t.metadata.description, 60),
        ]),
      ),
    );
  for (const bad of reply.invalid)
    lines.push(`invalid endpoint ${bad.endpoint} of ${bad.service}: ${bad.reason}`);
  return lines.join('\n');
}

export function renderBacklog(reply: BacklogListReply): string {
  if (reply.entries.length === 0) return 'The backlog is empty.';
  return table(
    ['ID', 'PRIORITY', 'CONTENT'],
    reply.entries.map((e) => [e.id, String(e.priority), compactJson(e.content, 90)]),
  );
}

export function renderUndoRedo(reply: UndoRedoReply): string {
  if (reply.status === 'empty') return `No actions to ${reply.action}.`;
  const verb = reply.action === 'undo' ? 'Undid' : 'Redid';
  const head =
    reply.count === 1
      ? `${verb} action: ${oneLine(reply.descriptions[0] ?? '', 300)}`
      : `${verb} ${reply.count} actions.`;
  return reply.changedUris.length ? `${head}\nchanged: ${reply.changedUris.join(', ')}` : head;
}

export function renderOperations(reply: OperationsListReply): string {
  if (reply.entries.length === 0) return 'No history.';
  return table(
    ['STACK', 'AT', 'DESCRIPTION'],
    reply.entries.map((e) => [e.stack, e.at.replace('T', ' ').slice(0, 19), oneLine(e.description, 90)]),
  );
}
