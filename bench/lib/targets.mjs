// The head of a benchmark's markdown (command, time, machine, load at start and end) and the system benchmark's
// targets (issue 19) side by side with their baselines measured in the same run.
import { machine, markdownTable, ms, ratio } from './report.mjs';

/** The run's time and machine now; `markdown(title)` also reads the load at the end (call it when done). */
export function runHeader(args, command = 'node bench/system.bench.mjs') {
  const at = new Date().toISOString();
  const start = machine();
  return {
    at,
    machine: start,
    markdown: (title) => {
      const end = machine();
      const m = start;
      return [
        `## ${title}`,
        '',
        `Command: \`${[command, ...args].join(' ')}\` (or \`npm run bench\`), started ${at}.`,
        '',
        `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, ${m.os}, Node ${m.node}; load average ` +
          `${m.loadAverage.join(' / ')} (1 / 5 / 15 min) at the start, ${end.loadAverage.join(' / ')} at the end. ` +
          'On a loaded machine read the ratios to the baselines (measured in the same run), not the absolute figures.',
      ].join('\n');
    },
  };
}

const verdict = (ok) => (ok === undefined ? '—' : ok ? 'met' : '**not met**');

/** One row per target whose part ran: what, target, measured, baseline (same run), met. */
export function targetsTable(results) {
  const rows = [];
  const d = results.dispatch;
  if (d) {
    const x = d.tool.p50 / d.raw.p50;
    rows.push([
      'read-only tool dispatch, p50',
      '≤ 1.5× raw NATS',
      `${ms(d.tool.p50)} ms (${ratio(d.tool.p50, d.raw.p50)})`,
      `raw NATS ${ms(d.raw.p50)} ms`,
      verdict(x <= 1.5),
    ]);
    const floor = d.raw.p50 + d.kvPair.p50;
    rows.push([
      'at-most-once tool dispatch, p50',
      'reported (2 JetStream writes)',
      `${ms(d.atMostOnce.p50)} ms (${ratio(d.atMostOnce.p50, floor)})`,
      `raw + KV pair ${ms(floor)} ms`,
      '—',
    ]);
  }
  const t = results.throughput;
  if (t) {
    rows.push([
      'read-only tool throughput, 1 runner',
      '≥ 0.5× raw NATS',
      `${t.one.tool.perSecond.toFixed(0)}/s (${ratio(t.one.tool.perSecond, t.one.raw.perSecond)})`,
      `raw NATS ${t.one.raw.perSecond.toFixed(0)}/s`,
      verdict(t.one.tool.perSecond / t.one.raw.perSecond >= 0.5),
    ]);
    rows.push([
      'CPU-bound tool, 2 runners vs 1',
      '≥ 1.6×',
      `${t.two.spin.perSecond.toFixed(0)}/s (${ratio(t.two.spin.perSecond, t.one.spin.perSecond)})`,
      `1 runner ${t.one.spin.perSecond.toFixed(0)}/s`,
      verdict(t.two.spin.perSecond / t.one.spin.perSecond >= 1.6),
    ]);
  }
  const a = results.accept;
  if (a) {
    rows.push([
      'goal acceptance (gateway), p99 at 16 concurrent',
      '≤ 10 ms',
      `${ms(a.concurrent16.latency.p99)} ms`,
      `acceptGoal without HTTP ${ms(a.busConcurrent16.latency.p99)} ms`,
      verdict(a.concurrent16.latency.p99 <= 10),
    ]);
  }
  for (const g of results.goals ?? []) {
    rows.push([
      `${g.goals} concurrent goals, tracing ${g.tracing}${g.runsMs?.length > 1 ? ` (median of ${g.runsMs.length} runs)` : ''}`,
      g.goals === 100 && g.tracing === 'off' ? '≤ 1.2× ideal' : 'reported',
      `${ms(g.totalMs)} ms (${ratio(g.totalMs, g.idealMs)})`,
      `ideal ${ms(g.idealMs)} ms`,
      g.goals === 100 && g.tracing === 'off' ? verdict(g.totalMs / g.idealMs <= 1.2) : '—',
    ]);
  }
  const td = results.tracingDispatch;
  if (td && d) {
    rows.push([
      'tracing on, read-only dispatch p50',
      'costs little',
      `${ratio(td.tool.p50, td.raw.p50)} raw`,
      `tracing off ${ratio(d.tool.p50, d.raw.p50)} raw`,
      '—',
    ]);
    rows.push([
      'tracing off, tracing calls per dispatch',
      'costs nothing measurable',
      `${(td.offCost.addedNs / 1000).toFixed(2)} µs`,
      `a dispatch ${ms(d.tool.p50)} ms`,
      verdict(td.offCost.addedNs / 1e6 < d.tool.p50 / 100),
    ]);
  }
  if (rows.length === 0) return '';
  return `### Targets (issue 19) and their baselines, this run\n\n${markdownTable(
    ['target', 'goal', 'measured', 'baseline (same run)', ''],
    rows,
  )}`;
}
