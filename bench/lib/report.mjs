// Latency statistics, machine description and the markdown tables of the benchmark scripts.
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
