import type { AgentKind } from '@novelrag/contracts';
import { api, type GoalSubmissionBody } from '../api';
import { clear, h } from '../dom';
import { errorBox } from './common';

const num = (input: HTMLInputElement, scale = 1): number | undefined =>
  input.value.trim() === '' ? undefined : Math.round(Number(input.value) * scale);

/** The agent kinds a submission can name, as the selector offers them (typed by the contract). */
export const AGENT_LABELS: Record<AgentKind, string> = {
  novelrag: 'novelrag: a goal (the four-phase loop)',
  rag: 'rag: a question answered from the repository, with citations',
  assistant: 'assistant: chat, tools in parallel',
};

const agentSelect = () =>
  h(
    'select',
    { name: 'agent', 'aria-label': 'agent kind' },
    Object.entries(AGENT_LABELS).map(([value, label]) => h('option', { value }, label)),
  );

/** Submit a request (translated into a goal) or a goal statement to an agent kind, with language, thread, beliefs and limits. */
export function submitView(root: HTMLElement): void {
  const agent = agentSelect();
  const kind = h(
    'select',
    { name: 'kind', 'aria-label': 'kind' },
    h('option', { value: 'request' }, 'Request (translated into a goal)'),
    h('option', { value: 'goal' }, 'Goal statement (used as is)'),
  );
  const text = h('textarea', {
    name: 'text',
    rows: 4,
    required: true,
    placeholder: 'Create a protagonist named 余归 and link her to the Azure Sect',
    'aria-label': 'goal text',
  });
  const lang = h('input', { name: 'lang', placeholder: 'en, zh, zh-Hans…', 'aria-label': 'language' });
  const thread = h('input', { name: 'threadId', placeholder: 'novel-1 (optional)', 'aria-label': 'thread' });
  const beliefs = h('textarea', {
    name: 'beliefs',
    rows: 2,
    placeholder: 'One belief per line (optional)',
    'aria-label': 'beliefs',
  });
  const maxSteps = h('input', { type: 'number', min: 1, max: 1000, 'aria-label': 'max steps' });
  const maxIterations = h('input', { type: 'number', min: 1, max: 50, 'aria-label': 'max iterations' });
  const tokenBudget = h('input', { type: 'number', min: 1, 'aria-label': 'token budget' });
  const wallClock = h('input', { type: 'number', min: 1, 'aria-label': 'wall clock seconds' });
  const out = h('div');
  const label = (title: string, input: HTMLElement) => h('label', {}, h('span', {}, title), input);
  const form = h(
    'form',
    { class: 'submit-form' },
    h('div', { class: 'row' }, label('Agent', agent), label('Kind', kind)),
    label('Text', text),
    h('div', { class: 'row' }, label('Language', lang), label('Thread', thread)),
    label('Beliefs', beliefs),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Limits (empty: the orchestrator defaults)'),
      h(
        'div',
        { class: 'row' },
        label('Max steps', maxSteps),
        label('Rounds per step', maxIterations),
        label('Token budget', tokenBudget),
        label('Wall clock (s)', wallClock),
      ),
    ),
    h('button', { type: 'submit', class: 'primary' }, 'Submit goal'),
    out,
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const limits = {
      ...(num(maxSteps) ? { maxSteps: num(maxSteps) } : {}),
      ...(num(maxIterations) ? { maxIterations: num(maxIterations) } : {}),
      ...(num(tokenBudget) ? { tokenBudget: num(tokenBudget) } : {}),
      ...(num(wallClock) ? { wallClockMs: num(wallClock, 1000) } : {}),
    };
    const lines = beliefs.value
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const body: GoalSubmissionBody = {
      ...(agent.value === 'novelrag' ? {} : { agent: agent.value as AgentKind }),
      [kind.value === 'goal' ? 'goal' : 'request']: text.value.trim(),
      ...(lang.value.trim() ? { lang: lang.value.trim() } : {}),
      ...(thread.value.trim() ? { threadId: thread.value.trim() } : {}),
      ...(lines.length ? { beliefs: lines } : {}),
      ...(Object.keys(limits).length ? { limits } : {}),
    };
    api
      .submit(body)
      .then(({ goalId }) => (location.hash = `#/goals/${goalId}`))
      .catch((err: unknown) => clear(out, errorBox(err)));
  });
  clear(root, h('h2', {}, 'Submit a goal'), form);
}
