// The markdown tables of the resource benchmark: one row per (size, store), and the ratios against the in-memory
// baseline measured on the same data in the same run.
import { markdownTable, mb, ms, ratio } from './report.mjs';

/** Renders the results of `resources.bench.mjs` (error rows included) as markdown sections. */
export function tables(results, opts) {
  const ok = results.filter((r) => !r.error);
  const main = markdownTable(
    [
      'N',
      'store',
      'insert el/s',
      'search p50 ms',
      'p95',
      'p99',
      'mean',
      'segments p50 ms',
      'p95',
      'p99',
      'mean',
      'exact@1',
      'RSS MB',
      'heap MB',
      'reopen ms',
    ],
    results.map((r) =>
      r.error
        ? [r.size, r.store, `error: ${r.error}`]
        : [
            r.elements,
            r.store,
            r.insert.elementsPerSecond.toFixed(0),
            ms(r.search.p50),
            ms(r.search.p95),
            ms(r.search.p99),
            ms(r.search.mean),
            ms(r.segments.p50),
            ms(r.segments.p95),
            ms(r.segments.p99),
            ms(r.segments.mean),
            r.quality.top1 === null ? '—' : `${(r.quality.top1 * 100).toFixed(1)}%`,
            mb(r.memory.rss),
            mb(r.memory.heapUsed),
            ms(r.reopenMs),
          ],
    ),
  );
  const baseline = (r) => ok.find((b) => b.store === 'memory' && b.size === r.size);
  const compared = ok.filter((r) => r.store !== 'memory' && baseline(r));
  const vs = markdownTable(
    [
      'N',
      'store',
      'insert el/s',
      'search p50',
      'search p99',
      'segments p50',
      'segments p99',
      'exact@1 (memory)',
    ],
    compared.map((r) => {
      const b = baseline(r);
      return [
        r.elements,
        r.store,
        ratio(r.insert.elementsPerSecond, b.insert.elementsPerSecond),
        ratio(r.search.p50, b.search.p50),
        ratio(r.search.p99, b.search.p99),
        ratio(r.segments.p50, b.segments.p50),
        ratio(r.segments.p99, b.segments.p99),
        `${(r.quality.top1 * 100).toFixed(1)}% (${(b.quality.top1 * 100).toFixed(1)}%)`,
      ];
    }),
  );
  const withRaw = ok.filter((r) => r.raw);
  const rawTable = markdownTable(
    [
      'N',
      'store',
      'hybrid search p50 / p99 ms',
      'raw ANN p50 / p99 ms',
      'raw full-text p50 / p99 ms',
      'p50 vs raw ANN',
    ],
    withRaw.map((r) => [
      r.elements,
      r.store,
      `${ms(r.search.p50)} / ${ms(r.search.p99)}`,
      `${ms(r.raw.ann.p50)} / ${ms(r.raw.ann.p99)}`,
      `${ms(r.raw.fts.p50)} / ${ms(r.raw.fts.p99)}`,
      ratio(r.search.p50, r.raw.ann.p50),
    ]),
  );
  const kinds = ['exact_zh', 'exact_en', 'partial', 'aspect_exact', 'aspect_partial'];
  const byKind = markdownTable(
    ['N', 'store', ...kinds.map((k) => `${k} p50/p99`)],
    ok.map((r) => [
      r.elements,
      r.store,
      ...kinds.map((k) =>
        r.searchByKind[k] ? `${ms(r.searchByKind[k].p50)} / ${ms(r.searchByKind[k].p99)}` : '—',
      ),
    ]),
  );
  const extra = markdownTable(
    [
      'N',
      'store',
      'insert s',
      'batch apply p50/p99 ms',
      'update p50/p99 ms',
      'optimize ms',
      'disk MB',
      'exact@10',
      'segments (missing)',
    ],
    ok.map((r) => [
      r.elements,
      r.store,
      r.insert.seconds.toFixed(1),
      `${ms(r.insert.batchMs.p50)} / ${ms(r.insert.batchMs.p99)}`,
      `${ms(r.update.p50)} / ${ms(r.update.p99)}`,
      r.optimizeMs === null ? '—' : ms(r.optimizeMs),
      r.diskBytes === null ? '—' : mb(r.diskBytes),
      `${(r.quality.top10 * 100).toFixed(1)}%`,
      `${r.segments.segmentsReturned} (${r.segments.missingUris})`,
    ]),
  );
  return [
    `### Resource store benchmark (${opts.queries} searches, limit ${opts.limit}; ${opts.queries} segment requests of 5–10 uris; apply batches of ~${opts.batch} elements)`,
    main,
    compared.length
      ? `\n### Versus the in-memory baseline (same run, same data): latency = store ÷ memory (above 1× = slower); insert el/s = store ÷ memory (below 1× = slower)\n${vs}`
      : '',
    withRaw.length
      ? `\n### Versus raw LanceDB (the same table and indexes, same run): one hybrid search sends 2 full-text, 1 nearest-neighbour and 1 id query (in parallel), then fuses\n${rawTable}`
      : '',
    `\n### Search latency by query kind (ms)\n${byKind}`,
    `\n### Insert, single-element update (property, after load) and load details\n${extra}`,
  ].join('\n');
}
