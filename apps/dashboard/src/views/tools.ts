import { api, type DiscoveredTool } from '../api';
import { badge, clear, duration, h, jsonBlock, time } from '../dom';
import { action, errorBox } from './common';

/** The live tool catalogue (instances, availability, hints, schemas) and the services with their $SRV.STATS. */
export function toolsView(root: HTMLElement, signal: AbortSignal): void {
  const tools = h('div', { 'data-testid': 'tools' });
  const services = h('div', { 'data-testid': 'services' });
  const load = async () => {
    const [t, s] = await Promise.allSettled([api.tools(), api.services()]);
    if (signal.aborted) return;
    clear(tools, t.status === 'fulfilled' ? toolTable(t.value.tools, t.value.invalid) : errorBox(t.reason));
    clear(services, s.status === 'fulfilled' ? serviceTable(s.value.services) : errorBox(s.reason));
  };
  clear(
    root,
    h('div', { class: 'toolbar' }, h('h2', {}, 'Tools'), action('Refresh', load)),
    tools,
    h('h2', {}, 'Services'),
    services,
  );
  void load();
  const timer = setInterval(() => void load(), 10_000);
  signal.addEventListener('abort', () => clearInterval(timer));
}

function toolTable(
  list: DiscoveredTool[],
  invalid: { service: string; endpoint: string; reason: string }[],
): HTMLElement {
  const flags = (t: DiscoveredTool) => [
    t.metadata.readOnly ? badge('read-only', 'ok') : null,
    t.metadata.destructive ? badge('destructive', 'failed') : null,
    t.metadata.idempotent ? badge('idempotent', 'ok') : null,
  ];
  return h(
    'div',
    {},
    h(
      'table',
      { class: 'tools' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Tool', 'Instances', 'Flags', 'Timeout', 'Description and hints'].map((c) => h('th', {}, c)),
        ),
      ),
      h(
        'tbody',
        {},
        list.map((t) =>
          h(
            'tr',
            { 'data-tool': t.name },
            h('td', {}, h('b', {}, t.name), h('div', { class: 'muted mono' }, t.subject)),
            h('td', { class: 'num' }, t.instances, t.available ? null : badge('unavailable', 'failed')),
            h('td', {}, flags(t)),
            h('td', { class: 'num' }, t.metadata.timeoutMs ? duration(t.metadata.timeoutMs) : '—'),
            h(
              'td',
              {},
              t.metadata.description,
              t.metadata.prerequisites
                ? h('div', { class: 'muted' }, `Prerequisites: ${t.metadata.prerequisites}`)
                : null,
              t.metadata.outputDescription
                ? h('div', { class: 'muted' }, `Output: ${t.metadata.outputDescription}`)
                : null,
              jsonBlock('Input schema', t.metadata.inputSchema),
            ),
          ),
        ),
      ),
    ),
    invalid.length
      ? h(
          'div',
          { class: 'error' },
          invalid.map((i) => h('div', {}, `${i.service} ${i.endpoint}: ${i.reason}`)),
        )
      : null,
  );
}

function serviceTable(list: Awaited<ReturnType<typeof api.services>>['services']): HTMLElement {
  return h(
    'table',
    { class: 'services' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Service', 'Instance', 'Version', 'Started', 'Endpoints (requests / errors / avg)'].map((c) =>
          h('th', {}, c),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      list.map((s) =>
        h(
          'tr',
          {},
          h('td', {}, s.name),
          h('td', { class: 'mono' }, s.id),
          h('td', {}, s.version),
          h('td', {}, time(s.started)),
          h(
            'td',
            {},
            s.endpoints.map((e) =>
              h(
                'div',
                { class: 'mono' },
                `${e.subject}: ${e.num_requests} / ${e.num_errors} / ${duration(e.average_processing_time / 1e6)}`,
              ),
            ),
          ),
        ),
      ),
    ),
  );
}
