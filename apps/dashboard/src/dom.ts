/** A tiny DOM builder: text is always set as text (model content never becomes markup). */
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, ...children);
  return el;
}

export function append(el: Element, ...children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

export function clear(el: Element, ...children: (Child | Child[])[]): void {
  el.replaceChildren();
  append(el, ...children);
}

/** "1.2 s", "3 min 4 s", "2 h 5 min". */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const s = ms / 1_000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.floor(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function time(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString([], { hour12: false });
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** A collapsible block of JSON (schemas, parameters, plans). */
export function jsonBlock(label: string, value: unknown, open = false): HTMLElement {
  return h('details', { class: 'json', open }, h('summary', {}, label), h('pre', {}, json(value)));
}

export function badge(text: string, kind = text): HTMLElement {
  return h('span', { class: `badge badge-${kind.replace(/[^a-z_]/gi, '')}` }, text);
}

/** A list of strings, or nothing when empty. */
export function list(title: string, items: readonly string[]): HTMLElement | null {
  if (items.length === 0) return null;
  return h(
    'div',
    { class: 'field' },
    h('b', {}, title),
    h(
      'ul',
      {},
      items.map((i) => h('li', {}, i)),
    ),
  );
}

export function field(title: string, value: string | number | null | undefined): HTMLElement | null {
  if (value === null || value === undefined || value === '') return null;
  return h('div', { class: 'field' }, h('b', {}, `${title}: `), String(value));
}
