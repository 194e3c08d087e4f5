#!/usr/bin/env node
// `npm run eval:retrieval`: builds the workspace (incremental `tsc -b`), loads the bilingual fixture world of
// eval/retrieval into the in-memory and the LanceDB store (a temporary folder) with the offline embedder, asks
// every question of eval/retrieval/questions.json and prints recall@5, recall@10 and MRR by kind and language.
//   --stores memory,lancedb   which stores (default both)
//   --misses                  also list the questions whose answer was not in the top 10, with what came back
//   --json <file>             write the figures as JSON too
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureEnv, root, bin } from './ensure-env.mjs';

await ensureEnv(import.meta.url);
const argv = process.argv.slice(2);
const arg = (name) => {
  const index = argv.indexOf(`--${name}`);
  return index >= 0 ? argv[index + 1] : undefined;
};
const stores = (arg('stores') ?? 'memory,lancedb').split(',').map((s) => s.trim());

console.log('[novelrag] building (incremental tsc -b)…');
const build = spawnSync(bin('tsc'), ['-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

process.env.LANCEDB_LOG ??= 'error';
const require = createRequire(import.meta.url);
const dist = (file) => require(path.join(root, 'apps/resource-service/dist', file));
const domain = dist('domain/index.js');
const { LanceDbResourceStore } = dist('store/index.js');
const evaluation = dist('eval/retrieval-eval.js');

const dir = evaluation.defaultEvalDir(root);
const world = evaluation.loadWorld(dir);
const questions = evaluation.loadQuestions(dir);
const embedder = new domain.LocalEmbedder(256);
const out = {};
for (const name of stores) {
  const temp = name === 'lancedb' ? mkdtempSync(path.join(tmpdir(), 'novelrag-eval-')) : undefined;
  const store =
    name === 'memory'
      ? new domain.InMemoryResourceStore()
      : name === 'lancedb'
        ? await LanceDbResourceStore.open({ dir: temp, dimensions: embedder.dimensions })
        : undefined;
  if (!store) {
    console.error(`unknown store ${name} (memory, lancedb)`);
    process.exit(2);
  }
  try {
    const repo = await domain.ResourceRepository.open(store, embedder);
    await evaluation.seedWorld(repo, world);
    const results = await evaluation.askAll(repo, questions);
    const report = evaluation.report(results);
    out[name] = report;
    console.log(`\n${evaluation.formatReport(`${name} (${questions.length} questions)`, report)}`);
    if (argv.includes('--misses')) {
      for (const miss of report.misses) {
        console.log(
          `  miss [${miss.question.kind}/${miss.question.lang}] ${miss.question.q} → ${miss.top.slice(0, 3).join(', ')}`,
        );
      }
    }
    await repo.close();
  } finally {
    await store.close();
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
}
const json = arg('json');
if (json) writeFileSync(json, `${JSON.stringify(out, null, 2)}\n`);
