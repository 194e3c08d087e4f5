import './styles.css';
import { apiKey } from './api';
import { clear, h } from './dom';
import { goalDetailView } from './views/goal-detail';
import { goalsView } from './views/goals';
import { repositoryView } from './views/repository';
import { submitView } from './views/submit';
import { toolsView } from './views/tools';

/** The ops dashboard: hash routes (no server routes needed), one view at a time, each stopped when left. */
const NAV = [
  ['#/goals', 'Goals'],
  ['#/submit', 'Submit'],
  ['#/tools', 'Tools & services'],
  ['#/repository', 'Repository'],
] as const;

const app = document.getElementById('app') ?? document.body;
const nav = h(
  'nav',
  {},
  NAV.map(([href, label]) => h('a', { href }, label)),
);
const keyArea = h('div', { class: 'key' });
const view = h('main');
clear(app, h('header', {}, h('h1', {}, 'NovelRAG ops'), nav, keyArea), view);
let current: AbortController | null = null;

function renderKey(editing = false): void {
  if (editing) {
    const input = h('input', {
      type: 'password',
      placeholder: 'API key',
      autocomplete: 'off',
      'aria-label': 'API key',
    });
    const form = h('form', { class: 'inline-form' }, input, h('button', { type: 'submit' }, 'Use key'));
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      if (input.value.trim()) apiKey.set(input.value.trim());
      renderKey();
      route();
    });
    clear(keyArea, form);
    input.focus();
    return;
  }
  const set = apiKey.get() !== null;
  clear(
    keyArea,
    h('span', { class: 'muted' }, set ? 'API key set (this tab only)' : 'no API key'),
    h('button', { type: 'button', onclick: () => renderKey(true) }, 'API key'),
    set
      ? h('button', { type: 'button', onclick: () => (apiKey.clear(), renderKey(), route()) }, 'Forget')
      : null,
  );
}

function route(): void {
  current?.abort();
  current = new AbortController();
  const signal = current.signal;
  const [path = '', search = ''] = location.hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter(Boolean);
  for (const a of nav.querySelectorAll('a'))
    a.classList.toggle('active', path.startsWith(a.getAttribute('href')?.slice(1) ?? '-'));
  clear(view);
  if (parts[0] === 'goals' && parts[1]) goalDetailView(view, decodeURIComponent(parts[1]), signal);
  else if (parts[0] === 'submit') submitView(view);
  else if (parts[0] === 'tools') toolsView(view, signal);
  else if (parts[0] === 'repository')
    repositoryView(view, new URLSearchParams(search).get('uri') ?? '/', signal);
  else goalsView(view, signal);
}

window.addEventListener('hashchange', route);
renderKey();
route();
