import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One metric family of a scrape, as the Prometheus text parser reads it (values as numbers). */
export interface MetricFamily {
  readonly name: string;
  readonly type: string;
  readonly samples: readonly {
    readonly labels: Readonly<Record<string, string>>;
    readonly value: number;
  }[];
}

const HISTOGRAM_TYPE = /^# TYPE (\S+) histogram$/gm;

/**
 * Scrapes `url` (bounded) and parses it with a Prometheus text-format parser; throws on a non-200 answer. The parser
 * folds only unlabelled histograms, so a histogram is read as its `<name>_bucket`, `<name>_sum` and `<name>_count`
 * series (families of those names), and its own name maps to a family of type HISTOGRAM without samples.
 */
export async function scrapeMetrics(url: string): Promise<Map<string, MetricFamily>> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  const text = await res.text();
  const histograms = [...text.matchAll(HISTOGRAM_TYPE)].map((m) => m[1] ?? '');
  const families = parsePrometheusTextFormat(text.replace(HISTOGRAM_TYPE, '# TYPE $1 untyped'));
  const out = new Map<string, MetricFamily>();
  for (const f of families) {
    // A histogram's series come interleaved per label set: the same name appears once per set.
    const samples = f.metrics.map((m) => ({ labels: m.labels ?? {}, value: Number(m.value) }));
    const seen = out.get(f.name);
    out.set(f.name, { name: f.name, type: f.type, samples: [...(seen?.samples ?? []), ...samples] });
  }
  for (const name of histograms) out.set(name, { name, type: 'HISTOGRAM', samples: [] });
  return out;
}

/** The sum of a family's samples whose labels include `labels` (0 when the family or such samples are absent). */
export function metricValue(
  families: Map<string, MetricFamily>,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  const family = families.get(name);
  if (!family) return 0;
  return family.samples
    .filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((n, s) => n + s.value, 0);
}
