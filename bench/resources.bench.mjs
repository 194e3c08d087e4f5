#!/usr/bin/env node
// Resource-service benchmark (issue 3, item 8): inserts N synthetic elements through ResourceRepository.apply, then
// measures hybrid search and segment latency (p50/p95/p99/mean), insert throughput, memory after load and reopen
// time, per store. The in-memory reference store runs on the same data in the same run as the baseline; the
// embedded LanceDB store is the subject; Qdrant joins when QDRANT_URL is set. Each (size, store) case runs in
// its own child process so memory figures do not mix.
//
//   node bench/resources.bench.mjs [--sizes 10000,100000] [--queries 200] [--stores memory,lancedb,qdrant]
//                                  [--batch 500] [--limit 10] [--dims 256] [--seed 42]
// Env equivalents: BENCH_SIZES, BENCH_QUERIES, BENCH_STORES, BENCH_BATCH; QDRANT_URL / QDRANT_API_KEY for Qdrant.
// Needs the compiled service (`npm run build`). Prints markdown tables; writes bench-results/resources-<ts>.json.
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ASPECTS,
  generateDataset,
  insertBatches,
  searchWorkload,
  segmentWorkload,
} from './lib/resource-data.mjs';
import { machine, summarize, timed } from './lib/report.mjs';
import { rawLanceDb } from './lib/raw-lancedb.mjs';
import { tables } from './lib/resource-tables.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const require = createRequire(import.meta.url);
const WARMUP = 10;
const KNOWN_STORES = ['memory', 'lancedb', 'qdrant'];

function loadService() {
  try {
    return {
      domain: require(path.join(root, 'libs/repository/dist/index.js')),
      store: require(path.join(root, 'apps/resource-service/dist/store/index.js')),
    };
  } catch (err) {
    console.error(`Cannot load the compiled resource-service (${err.message}). Build first: npm run build`);
    process.exit(1);
  }
}

function options(argv) {
  const arg = (name) => {
    const index = argv.indexOf(`--${name}`);
    if (index >= 0) return argv[index + 1];
    return argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  };
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(
      'usage: resources.bench.mjs [--sizes 10000,100000] [--queries 200] [--stores memory,lancedb,qdrant] [--batch 500] [--limit 10] [--dims 256] [--seed 42]',
    );
    process.exit(0);
  }
  const positive = (name, value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) {
      console.error(`--${name} must be a positive integer (got ${JSON.stringify(value)})`);
      process.exit(2);
    }
    return n;
  };
  const qdrantUrl = process.env.QDRANT_URL || undefined;
  const sizes = String(arg('sizes') ?? process.env.BENCH_SIZES ?? '10000')
    .split(',')
    .map((s) => positive('sizes', s.trim().replace(/_/g, '').replace(/k$/i, '000')));
  let stores = String(
    arg('stores') ?? process.env.BENCH_STORES ?? `memory,lancedb${qdrantUrl ? ',qdrant' : ''}`,
  )
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const unknown = stores.filter((s) => !KNOWN_STORES.includes(s));
  if (unknown.length > 0) {
    console.error(`Unknown store(s) ${unknown.join(', ')}; known: ${KNOWN_STORES.join(', ')}`);
    process.exit(2);
  }
  const notices = [];
  if (!qdrantUrl) {
    notices.push(
      'Qdrant: skipped (QDRANT_URL is not set; set it, e.g. QDRANT_URL=http://127.0.0.1:6333, to include it).',
    );
    stores = stores.filter((s) => s !== 'qdrant');
  }
  // The baseline runs first so that every other store's ratios are available.
  if (!stores.includes('memory'))
    notices.push('Baseline: memory store not selected, so the ratio table is empty.');
  stores.sort((a, b) => KNOWN_STORES.indexOf(a) - KNOWN_STORES.indexOf(b));
  return {
    sizes,
    stores,
    notices,
    queries: positive('queries', arg('queries') ?? process.env.BENCH_QUERIES ?? 200),
    batch: positive('batch', arg('batch') ?? process.env.BENCH_BATCH ?? 500),
    limit: positive('limit', arg('limit') ?? 10),
    dims: positive('dims', arg('dims') ?? 256),
    seed: positive('seed', arg('seed') ?? 42),
    qdrant: qdrantUrl ? { url: qdrantUrl, apiKey: process.env.QDRANT_API_KEY || undefined } : undefined,
  };
}

// ---- one case (child process) ----------------------------------------------------------------------------------

function log(config, message) {
  process.stderr.write(`  [${config.store} ${config.size}] ${message}\n`);
}

async function openStore(service, config) {
  const { InMemoryResourceStore } = service.domain;
  const { LanceDbResourceStore, QdrantResourceStore } = service.store;
  switch (config.store) {
    case 'memory':
      return new InMemoryResourceStore();
    case 'lancedb':
      return LanceDbResourceStore.open({ dir: config.dir, dimensions: config.dims });
    case 'qdrant':
      return QdrantResourceStore.open({
        url: config.qdrant.url,
        ...(config.qdrant.apiKey ? { apiKey: config.qdrant.apiKey } : {}),
        collection: config.collection,
        dimensions: config.dims,
      });
  }
  throw new Error(`unknown store ${config.store}`);
}

async function dropQdrantCollections(config) {
  const { QdrantClient } = require('@qdrant/js-client-rest');
  const client = new QdrantClient({
    url: config.qdrant.url,
    apiKey: config.qdrant.apiKey,
    checkCompatibility: false,
  });
  for (const name of [config.collection, `${config.collection}_meta`]) {
    await client.deleteCollection(name).catch(() => undefined);
  }
}

function diskBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? diskBytes(full) : statSync(full).size;
  }
  return total;
}

async function runCase(config) {
  const service = loadService();
  const { ResourceRepository, LocalEmbedder, InMemoryResourceStore } = service.domain;
  let dataset = generateDataset(config.size, config.seed);
  const queries = searchWorkload(dataset, config.queries + WARMUP, config.seed + 1);
  const segmentRequests = segmentWorkload(dataset, config.queries + WARMUP, config.seed + 2);
  const elements = dataset.total;
  const updateCount = Math.max(20, Math.floor(config.queries / 4));
  const updateUris = Array.from(
    { length: updateCount },
    (_, i) => dataset.uris[(i * 7919) % dataset.uris.length],
  );
  const embedder = new LocalEmbedder(config.dims);
  let store;
  let repo;
  try {
    store = await openStore(service, config);
    repo = await ResourceRepository.open(store, embedder);
    for (const [name, aspect] of Object.entries(ASPECTS)) await repo.addAspect(name, aspect);

    // Insert.
    const batchMs = [];
    let inserted = 0;
    let nextReport = elements / 10;
    const started = process.hrtime.bigint();
    for (const batch of insertBatches(dataset, config.batch)) {
      const { ms: took } = await timed(() => repo.apply(batch.ops));
      batchMs.push(took);
      inserted += batch.elements;
      if (inserted >= nextReport) {
        const secs = Number(process.hrtime.bigint() - started) / 1e9;
        log(
          config,
          `inserted ${inserted}/${elements} in ${secs.toFixed(1)} s (last batch ${took.toFixed(0)} ms)`,
        );
        nextReport += elements / 10;
      }
    }
    const insertSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    dataset = null; // only the workloads are needed from here on (keeps the memory figure about the store)
    const optimizeMs = typeof store.optimize === 'function' ? (await timed(() => store.optimize())).ms : null;
    const stored = repo.snapshot().records.length;
    if (stored !== elements) throw new Error(`the repository holds ${stored} elements, expected ${elements}`);

    globalThis.gc?.();
    const memory = process.memoryUsage();

    // Search.
    const searchMs = [];
    const byKind = {};
    let exact = 0;
    let top1 = 0;
    let top10 = 0;
    const misses = [];
    for (const [index, query] of queries.entries()) {
      const { ms: took, result } = await timed(() =>
        repo.search(query.text, { limit: config.limit, ...(query.aspect ? { aspect: query.aspect } : {}) }),
      );
      if (index < WARMUP) continue;
      searchMs.push(took);
      (byKind[query.kind] ??= []).push(took);
      if (query.expected) {
        exact += 1;
        const rank = result.findIndex((hit) => hit.uri === query.expected);
        if (rank === 0) top1 += 1;
        if (rank >= 0 && rank < 10) top10 += 1;
        if (rank !== 0 && misses.length < 5)
          misses.push({ query: query.text, expected: query.expected, got: result[0]?.uri ?? null, rank });
      }
    }

    // The same kinds of query straight to LanceDB, on the same table (the baseline of the store's search).
    const raw =
      config.store === 'lancedb'
        ? await rawLanceDb({
            root,
            dir: config.dir,
            queries,
            embedder,
            queryTerms: service.domain.queryTerms,
            candidates: service.domain.candidateLimit(config.limit),
            warmup: WARMUP,
          })
        : null;

    // Segments.
    const segmentMs = [];
    let missing = 0;
    let returned = 0;
    for (const [index, request] of segmentRequests.entries()) {
      const { ms: took, result } = await timed(() => repo.segments(request));
      if (index < WARMUP) continue;
      segmentMs.push(took);
      missing += result.missing.length;
      returned += result.segments.length;
    }

    // Single-element writes on the loaded store (what an agent step does): property update, undo log included.
    const updateMs = [];
    for (const [index, uri] of updateUris.entries()) {
      const op = { target: 'property', resource_uri: uri, data: { note: `benchmark update ${index}` } };
      updateMs.push((await timed(() => repo.apply([op]))).ms);
    }

    // Reopen: what a service restart costs (the repository loads every record and checks its hash).
    await repo.close();
    const snapshot =
      config.store === 'memory' ? { state: store.exportState(), vectors: store.exportVectors() } : null;
    // A restarted process holds only the new repository: the closed one is released before the new one loads
    // (holding both doubled the peak heap, which ran out of the default heap at 1M elements).
    repo = undefined;
    store = undefined;
    const reopen = await timed(async () => {
      store = snapshot ? new InMemoryResourceStore(snapshot) : await openStore(service, config);
      repo = await ResourceRepository.open(store, embedder);
    });

    return {
      store: config.store,
      size: config.size,
      elements,
      batchElements: config.batch,
      insert: {
        seconds: insertSeconds,
        elementsPerSecond: elements / insertSeconds,
        batchMs: summarize(batchMs),
      },
      optimizeMs,
      memory: {
        rss: memory.rss,
        heapUsed: memory.heapUsed,
        external: memory.external,
        arrayBuffers: memory.arrayBuffers,
      },
      search: summarize(searchMs),
      raw,
      searchByKind: Object.fromEntries(
        Object.entries(byKind).map(([kind, samples]) => [kind, summarize(samples)]),
      ),
      quality: {
        exactQueries: exact,
        top1: exact ? top1 / exact : null,
        top10: exact ? top10 / exact : null,
        misses,
      },
      segments: { ...summarize(segmentMs), segmentsReturned: returned, missingUris: missing },
      update: summarize(updateMs),
      reopenMs: reopen.ms,
      diskBytes: config.store === 'lancedb' ? diskBytes(config.dir) : null,
    };
  } finally {
    await (repo ?? store)?.close().catch(() => undefined);
    if (config.store === 'qdrant') await dropQdrantCollections(config);
  }
}

// ---- orchestration (parent process) ----------------------------------------------------------------------------

function runChild(config) {
  return new Promise((resolve) => {
    const child = fork(fileURLToPath(import.meta.url), ['--child', JSON.stringify(config)], {
      execArgv: ['--expose-gc'],
      // LanceDB's Rust side logs a deprecation warning on every search at the default level.
      env: { ...process.env, LANCEDB_LOG: process.env.LANCEDB_LOG ?? 'error' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let result;
    child.on('message', (message) => (result = message));
    child.on('exit', (code, signal) =>
      resolve(
        result ?? { store: config.store, size: config.size, error: `child exited with ${code ?? signal}` },
      ),
    );
  });
}

async function main() {
  const opts = options(process.argv.slice(2));
  const lancedbVersion = JSON.parse(
    readFileSync(path.join(root, 'node_modules/@lancedb/lancedb/package.json'), 'utf8'),
  ).version;
  const before = machine({ lancedb: lancedbVersion });
  for (const notice of opts.notices) console.log(notice);
  if (opts.stores.length === 0) {
    console.error('No store to benchmark.');
    process.exit(2);
  }
  loadService(); // fail fast when the build is missing
  const work = mkdtempSync(path.join(tmpdir(), 'novelrag-bench-'));
  const cleanup = () => rmSync(work, { recursive: true, force: true });
  process.once('SIGINT', () => {
    cleanup();
    process.exit(130);
  });
  const results = [];
  try {
    for (const size of opts.sizes) {
      for (const store of opts.stores) {
        console.log(`- ${store}, ${size} elements…`);
        const config = {
          store,
          size,
          queries: opts.queries,
          batch: opts.batch,
          limit: opts.limit,
          dims: opts.dims,
          seed: opts.seed,
          dir: path.join(work, `${store}-${size}`),
          qdrant: opts.qdrant,
          collection: `novelrag_bench_${process.pid}_${size}`,
        };
        const { ms: took, result } = await timed(() => runChild(config));
        console.log(`  done in ${(took / 1000).toFixed(1)} s${result.error ? ` (${result.error})` : ''}`);
        results.push(result);
      }
    }
  } finally {
    cleanup();
  }
  const after = machine();
  report({ opts, before, loadAtEnd: after.loadAverage, results });
  if (results.some((r) => r.error)) process.exitCode = 1;
}

/**
 * Prints the machine line and the tables, and writes bench-results/resources-<ts>.{json,md}: the markdown (command,
 * machine, load, tables) is what `npm run benchmarks:write` puts into BENCHMARKS.md.
 */
function report({ opts, before, loadAtEnd, results, stamp = new Date().toISOString() }) {
  const m = before;
  const machineLine =
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB RAM, ${m.os}, Node ${m.node}, LanceDB ${m.lancedb}; ` +
    `load average ${m.loadAverage.join('/')} at start, ${loadAtEnd.join('/')} at end. ` +
    `Embedder: LocalEmbedder(${opts.dims}) (deterministic, offline).`;
  const body = tables(results, opts);
  console.log(`\n${machineLine}\n`);
  console.log(body);
  const outDir = path.join(root, 'bench-results');
  mkdirSync(outDir, { recursive: true });
  const base = path.join(outDir, `resources-${stamp.replace(/[:.]/g, '-')}`);
  const command = `BENCH_ONLY=resources npm run bench -- --sizes ${opts.sizes.join(',')} --stores ${opts.stores.join(',')}`;
  writeFileSync(
    `${base}.json`,
    `${JSON.stringify({ benchmark: 'resources', startedAt: stamp, options: { ...opts, qdrant: opts.qdrant ? { url: opts.qdrant.url } : null }, machine: { ...before, loadAverageAtEnd: loadAtEnd }, results }, null, 2)}\n`,
  );
  writeFileSync(`${base}.md`, `Run ${stamp}: \`${command}\`\n\n${machineLine}\n\n${body}\n`);
  console.log(`\nwritten: ${path.relative(process.cwd(), base)}.{json,md}`);
  if (results.some((r) => r.error)) process.exitCode = 1;
}

/** `--render <file.json>`: the markdown of a saved run again (e.g. after the table layout changed), not a new run. */
function render(file) {
  const saved = JSON.parse(readFileSync(file, 'utf8'));
  const { loadAverageAtEnd, ...before } = saved.machine;
  const stamp = saved.startedAt ?? path.basename(file).replace(/^resources-|\.json$/g, '');
  report({ opts: saved.options, before, loadAtEnd: loadAverageAtEnd, results: saved.results, stamp });
}

if (process.argv[2] === '--render') {
  render(process.argv[3]);
} else if (process.argv[2] === '--child') {
  const config = JSON.parse(process.argv[3]);
  runCase(config).then(
    (result) => process.send(result, () => process.exit(0)),
    (err) => {
      console.error(err);
      process.send({ store: config.store, size: config.size, error: String(err?.message ?? err) }, () =>
        process.exit(1),
      );
    },
  );
} else {
  await main();
}
