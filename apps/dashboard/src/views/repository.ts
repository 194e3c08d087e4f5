import type { FindReply, ResourceElement } from '@novelrag/contracts';
import { api } from '../api';
import { clear, h, jsonBlock, time } from '../dom';
import { action, errorBox } from './common';

const link = (uri: string, text = uri) =>
  h('a', { href: `#/repository?uri=${encodeURIComponent(uri)}` }, text);

/** Browse aspects and elements by URI, search, and undo/redo the newest changes (with the recent history). */
export function repositoryView(root: HTMLElement, uri: string, signal: AbortSignal): void {
  const main = h('div', { class: 'resource', 'data-testid': 'resource' });
  const history = h('div', { class: 'history' });
  const searchOut = h('div', { 'data-testid': 'search-results' });
  const uriInput = h('input', { value: uri, 'aria-label': 'uri', class: 'mono' });
  const query = h('input', { placeholder: 'search: 余归, sect…', 'aria-label': 'search' });
  const open = h('form', { class: 'inline-form' }, uriInput, h('button', { type: 'submit' }, 'Open'));
  open.addEventListener('submit', (ev) => {
    ev.preventDefault();
    location.hash = `#/repository?uri=${encodeURIComponent(uriInput.value.trim() || '/')}`;
  });
  const search = h('form', { class: 'inline-form' }, query, h('button', { type: 'submit' }, 'Search'));
  search.addEventListener('submit', (ev) => {
    ev.preventDefault();
    api
      .search(query.value.trim())
      .then((r) =>
        clear(
          searchOut,
          r.hits.length === 0 ? h('div', { class: 'muted' }, 'No hits.') : null,
          h(
            'ul',
            {},
            r.hits.map((hit) =>
              h('li', {}, link(hit.uri), h('span', { class: 'muted' }, ` ${hit.score.toFixed(3)}`)),
            ),
          ),
        ),
      )
      .catch((err: unknown) => clear(searchOut, errorBox(err)));
  });
  const loadHistory = async () => {
    const ops = await api.operations();
    if (signal.aborted) return;
    clear(
      history,
      h('h3', {}, 'Recent changes'),
      h(
        'ul',
        {},
        ops.entries.map((e) => h('li', {}, `${time(e.at)} [${e.stack}] ${e.description}`)),
      ),
    );
  };
  const reload = async () => {
    await Promise.all([show(), loadHistory()]);
  };
  const show = async () => {
    try {
      const found = await api.resource(uri);
      if (!signal.aborted) clear(main, render(found));
    } catch (err) {
      clear(main, errorBox(err));
    }
  };
  clear(
    root,
    h(
      'div',
      { class: 'toolbar' },
      h('h2', {}, 'Repository'),
      open,
      search,
      action('Undo', () => api.undo().then(reload)),
      action('Redo', () => api.redo().then(reload)),
    ),
    searchOut,
    h('div', { class: 'split' }, main, history),
  );
  void show();
  void loadHistory().catch((err: unknown) => clear(history, errorBox(err)));
}

function render(found: FindReply): HTMLElement {
  switch (found.kind) {
    case 'root':
      return h(
        'div',
        {},
        h('h3', {}, 'Aspects'),
        h(
          'ul',
          {},
          found.aspects.map((a) =>
            h(
              'li',
              {},
              link(`/${a.name}`, a.name),
              a.description ? h('span', { class: 'muted' }, ` — ${a.description}`) : null,
            ),
          ),
        ),
      );
    case 'aspect':
      return h(
        'div',
        {},
        h('h3', {}, link('/', '/'), ` ${found.aspect.name}`),
        found.aspect.description ? h('p', {}, found.aspect.description) : null,
        h(
          'ul',
          {},
          found.rootIds.map((id) => h('li', {}, link(`${found.uri}/${id}`, id))),
        ),
        jsonBlock('Aspect metadata', found.aspect.metadata),
      );
    case 'element':
      return element(found.element);
  }
}

function element(e: ResourceElement): HTMLElement {
  const rel = Object.entries(e.relationships);
  return h(
    'div',
    {},
    h('h3', {}, link(`/${e.aspect}`, e.aspect), ' / ', e.id),
    h(
      'table',
      { class: 'props' },
      h(
        'tbody',
        {},
        Object.entries(e.properties).map(([k, v]) =>
          h('tr', {}, h('th', {}, k), h('td', {}, typeof v === 'string' ? v : JSON.stringify(v))),
        ),
      ),
    ),
    rel.length
      ? h(
          'div',
          {},
          h('h4', {}, 'Relationships'),
          h(
            'ul',
            {},
            rel.map(([target, labels]) => h('li', {}, link(target), ` ${labels.join(', ')}`)),
          ),
        )
      : null,
    ...Object.entries(e.children).map(([key, kids]) =>
      h(
        'div',
        {},
        h('h4', {}, key),
        h(
          'ul',
          {},
          kids.map((k) => h('li', {}, link(k.uri, k.id))),
        ),
      ),
    ),
  );
}
