import { ApiError } from '../api';
import { h } from '../dom';

/** An error answer shown in the page (401 says to enter the key). */
export function errorBox(err: unknown): HTMLElement {
  const text = err instanceof Error ? err.message : String(err);
  const hint =
    err instanceof ApiError && err.status === 401
      ? ' — enter an API key with the "API key" button above.'
      : '';
  return h('div', { class: 'error', role: 'alert' }, text + hint);
}

/** Runs an action from a button: disabled while it runs, errors shown next to it. */
export function action(
  label: string,
  run: () => Promise<unknown>,
  attrs: Record<string, string> = {},
): HTMLElement {
  const out = h('span', { class: 'action-result' });
  const button = h('button', { type: 'button', ...attrs }, label);
  button.addEventListener('click', () => {
    button.disabled = true;
    out.replaceChildren();
    run()
      .catch((err: unknown) => out.replaceChildren(errorBox(err)))
      .finally(() => (button.disabled = false));
  });
  return h('span', { class: 'action' }, button, out);
}
