// Lines for the `assistant` agent kind's trace events: its states, plans, parallel tool groups and answer.
import type { TraceEventOf } from '@novelrag/contracts';
import { clip, compactJson, list, oneLine, type Style } from './text';

interface Options {
  readonly style: Style;
  readonly verbose: boolean;
}

const tag = (s: Style, label: string) => s.cyan(`[${label}]`);

export function renderAssistantState(event: TraceEventOf<'assistant.state'>, { style: s, verbose }: Options) {
  const reason = event.reason ? ` (${oneLine(event.reason, 160)})` : '';
  if (event.to === 'error') return `${s.red('[assistant]')} ${event.from} → error${reason}`;
  return verbose || event.reason
    ? s.dim(`[assistant] ${event.from} → ${event.to}, round ${event.round}${reason}`)
    : undefined;
}

export function renderAssistantPlan(event: TraceEventOf<'assistant.plan'>, { style: s }: Options) {
  const next =
    event.action === 'output_content'
      ? 'answer'
      : `${event.tasks.length} tool call(s) at once: ${list(event.tasks.map((t) => t.tool))}`;
  return `${tag(s, `plan #${event.round}`)} ${list(event.plan, 3)} ${s.dim(`→ ${next}`)}`;
}

/** A group dispatched together is shown as one line with a branch per call, so parallel calls read as parallel. */
export function renderAssistantTools(event: TraceEventOf<'assistant.tools'>, { style: s }: Options) {
  const head = `${tag(s, `tools #${event.round}`)} ${event.phase === 'running' ? 'running in parallel' : 'finished'}:`;
  const rows = event.tasks.map((t) => {
    const status =
      t.status === 'done' ? s.green('ok') : t.status === 'failed' ? s.red('failed') : s.dim(t.status);
    const detail = t.error ? ` ${t.error.code}: ${oneLine(t.error.message, 100)}` : '';
    const input = event.phase === 'running' && t.input ? ` ${compactJson(t.input, 100)}` : '';
    return `  ├ ${s.bold(t.tool)}${input} ${status}${detail}`;
  });
  return [head, ...rows].join('\n');
}

export function renderAssistantOutput(event: TraceEventOf<'assistant.output'>, { style: s }: Options) {
  const lines = [`${tag(s, event.forced ? 'answer (forced)' : 'answer')} ${clip(event.content, 4_000)}`];
  if (event.suggestions.length > 0) {
    lines.push(s.dim('You could ask next:'));
    for (const suggestion of event.suggestions) lines.push(s.dim(`  › ${oneLine(suggestion, 160)}`));
  }
  return lines.join('\n');
}
