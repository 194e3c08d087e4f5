// Latency statistics, machine description and the markdown tables of the benchmark scripts.
import { cpuMsOf } from './cpu.mjs';
import { cpus, freemem, loadavg, platform, release, totalmem } from 'node:os';

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** `{n, p50, p95, p99, mean, max}` in milliseconds of a list of millisecond samples. */
export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, x) => sum + x, 0) / (sorted.length || 1);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean,
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

/** Runs `fn` and returns its duration in milliseconds (high resolution) with its result. */
export async function timed(fn) {
  const start = process.hrtime.bigint();
  const result = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, result };
}

export function machine(extra = {}) {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    memoryGb: +(totalmem() / 2 ** 30).toFixed(1),
    freeMemoryGb: +(freemem() / 2 ** 30).toFixed(1),
    os: `${platform()} ${release()}`,
    node: process.version,
    loadAverage: loadavg().map((x) => +x.toFixed(2)),
    ...extra,
  };
}

export const ms = (x) =>
  Number.isFinite(x) ? (x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0)) : '—';
export const mb = (bytes) => (Number.isFinite(bytes) ? (bytes / 2 ** 20).toFixed(0) : '—');
export const ratio = (x, base) =>
  Number.isFinite(x) && Number.isFinite(base) && base > 0
    ? `${(x / base).toFixed(x / base < 10 ? 2 : 0)}×`
    : '—';

/** A markdown table from a header row and rows of cells (numbers right-aligned). */
export function markdownTable(header, rows) {
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((row) => width(String(row[i] ?? '')))));
  const line = (cells, align) =>
    `| ${cells
      .map((cell, i) => {
        const text = String(cell ?? '');
        const pad = ' '.repeat(widths[i] - width(text));
        return align[i] === 'right' ? pad + text : text + pad;
      })
      .join(' | ')} |`;
  const align = header.map((_, i) => (i < 2 ? 'left' : 'right'));
  const rule = `|${widths.map((w, i) => (align[i] === 'right' ? `${'-'.repeat(w + 1)}:` : `:${'-'.repeat(w + 1)}`)).join('|')}|`;
  return [line(header, align), rule, ...rows.map((row) => line(row, align))].join('\n');
}

/** Display width: CJK characters take two columns in a terminal. */
function width(text) {
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

/** `int(name, fallback)`: the option `--name` of parseArgs' `values` as a positive integer (exits 2 when it is not). */
export function positiveInts(values) {
  return (name, fallback) => {
    const n = Number(values[name] ?? fallback);
    if (!Number.isInteger(n) || n < 1) {
      console.error(`--${name} must be a positive integer`);
      process.exit(2);
    }
    return n;
  };
}

/**
 * `run()` and the CPU time it cost per call (`n` calls), in microseconds: this process (`client`, exact) and each named
 * group of processes (`groups`: name → pids; from /proc (cpu.mjs) in clock ticks, so read it over runs of a second or
 * more).
 * Unlike latencies, these do not grow when other work shares the cores.
 */
export async function withCpu(n, groups, run) {
  const read = () =>
    Object.fromEntries(
      Object.entries(groups).map(([name, pids]) => {
        const each = pids.map(cpuMsOf);
        return [name, each.every(Number.isFinite) ? each.reduce((a, b) => a + b, 0) : undefined];
      }),
    );
  const [client0, before] = [process.cpuUsage(), read()];
  const result = await run();
  const [client, after] = [process.cpuUsage(client0), read()];
  const cpuUs = { client: (client.user + client.system) / n };
  for (const name of Object.keys(groups)) {
    const [a, b] = [before[name], after[name]];
    cpuUs[name] = a === undefined || b === undefined ? undefined : ((b - a) * 1000) / n;
  }
  return { ...result, cpuUs };
}

/** `cpuUs` of `withCpu` as "client + a + b = total µs" (— where /proc is missing). */
export function cpuCell(cpuUs, unit = 'µs', scale = 1) {
  const parts = Object.values(cpuUs ?? {});
  if (parts.length === 0 || parts.includes(undefined)) return '—';
  const f = (x) => (x * scale).toFixed(scale === 1 ? 0 : 2);
  return `${parts.map(f).join(' + ')} = ${f(parts.reduce((a, b) => a + b, 0))} ${unit}`;
}
