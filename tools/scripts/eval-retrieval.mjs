#!/usr/bin/env node
// `npm run eval:retrieval`: builds the workspace (incremental `tsc -b`), loads the bilingual fixture world of
// eval/retrieval into the in-memory and the LanceDB store (a temporary folder) with the offline embedder, asks
// every question of eval/retrieval/questions.json and prints recall@5, recall@10 and MRR by kind and language.
// Then the same for the hybrid hits reranked by the `rerank` tool (its prompt, the model through the real OpenAI SDK):
// always with the scripted reranker (a word-overlap stand-in served by tools/demo/scripted-llm.mjs, not a model), and
// with the configured model when OPENAI_BASE_URL/OPENAI_API_KEY are set; a last table compares them.
//   --stores memory,lancedb   which stores (default both)
//   --misses                  also list the questions whose answer was not in the top 10, with what came back
//   --json <file>             write the figures as JSON too
//   --tune                    search the fusion weights on the questions (in-memory store), with a 2-fold cross-validation
//   --rerank scripted,model   which rerankers (default scripted, plus model when a provider is configured; none: skip)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureEnv, root, bin } from './ensure-env.mjs';

await ensureEnv(import.meta.url);
const argv = process.argv.slice(2);
const arg = (name) => {
  const index = argv.indexOf(`--${name}`);
  return index >= 0 ? argv[index + 1] : undefined;
};
const stores = (arg('stores') ?? 'memory,lancedb').split(',').map((s) => s.trim());
const hasProvider = Boolean(process.env.OPENAI_BASE_URL || process.env.OPENAI_API_KEY);
const rerankers = (arg('rerank') ?? (hasProvider ? 'scripted,model' : 'scripted'))
  .split(',')
  .map((r) => r.trim())
  .filter((r) => r && r !== 'none');
for (const name of rerankers) {
  if (name !== 'scripted' && name !== 'model') {
    console.error(`unknown reranker ${name} (scripted, model, none)`);
    process.exit(2);
  }
  if (name === 'model' && !hasProvider) {
    console.error('rerank with a model needs OPENAI_BASE_URL or OPENAI_API_KEY');
    process.exit(2);
  }
}

console.log('[novelrag] building (incremental tsc -b)…');
const build = spawnSync(bin('tsc'), ['-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

process.env.LANCEDB_LOG ??= 'error';
const require = createRequire(import.meta.url);
const dist = (file) => require(path.join(root, 'apps/resource-service/dist', file));
const domain = require(path.join(root, 'libs/repository/dist/index.js'));
const { LanceDbResourceStore } = dist('store/index.js');
const evaluation = dist('eval/retrieval-eval.js');

const dir = evaluation.defaultEvalDir(root);
const world = evaluation.loadWorld(dir);
const questions = evaluation.loadQuestions(dir);
// A configured embeddings model (NOVELRAG_EMBEDDING_MODEL, see docs/search.md) is used; else the offline fallback.
const llm = require(path.join(root, 'libs/llm/dist/index.js'));
const embedder = llm.createEmbedderFromEnv(llm.parseLlmEnv(process.env)) ?? new domain.LocalEmbedder(256);
console.log(
  `[novelrag] embedder: ${embedder.id}${embedder instanceof domain.LocalEmbedder ? ' (offline fallback)' : ''}`,
);
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
    const report = evaluation.report(await evaluation.evaluate(store, embedder, dir));
    out[name] = report;
    console.log(`\n${evaluation.formatReport(`${name} (${questions.length} questions)`, report)}`);
    if (argv.includes('--misses')) {
      for (const miss of report.misses) {
        const { kind, lang, q } = miss.question;
        console.log(`  miss [${kind}/${lang}] ${q} → ${miss.top.slice(0, 3).join(', ')}`);
      }
    }
  } finally {
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
}
if (argv.includes('--tune')) {
  const tune = dist('eval/tune-fusion.js');
  const store = new domain.InMemoryResourceStore();
  const repo = await domain.ResourceRepository.open(store, embedder);
  await evaluation.seedWorld(repo, world);
  const records = new Map(repo.snapshot().records.map((record) => [record.uri, record]));
  const prepared = await tune.prepareQuestions(store, embedder, records, questions);
  const outcome = tune.tuneFusion(prepared);
  const fmt = (s) => `recall@10 ${s.recallAt10.toFixed(2)}, MRR ${s.mrr.toFixed(2)}`;
  console.log(`\nTuned weights: ${JSON.stringify(outcome.weights)}`);
  console.log(`  with them:        ${fmt(outcome.chosen)} (current weights: ${fmt(outcome.current)})`);
  console.log(
    `  cross-validated:  ${fmt(outcome.crossValidated)} (two folds, each half scored with weights chosen on the other)`,
  );
  await repo.close();
}
if (rerankers.length > 0) out.rerank = await evaluateRerank(rerankers);

/** Hybrid hits (in-memory store, top 10) reranked by each reranker; prints their tables and a comparison. */
async function evaluateRerank(names) {
  const { toolReranker, overlapRanking } = require(
    path.join(root, 'apps/tool-runner/dist/eval/rerank-eval.js'),
  );
  const { startScriptedLlm } = await import(
    pathToFileURL(path.join(root, 'tools/demo/scripted-llm.mjs')).href
  );
  const repo = await domain.ResourceRepository.open(new domain.InMemoryResourceStore(), embedder);
  const modelEnv = llm.parseLlmEnv(process.env);
  const scripted = names.includes('scripted')
    ? await startScriptedLlm({
        scenario: { name: 'rerank-overlap', rules: [] },
        respond: (request) => {
          const ranking = request.schema === 'document_ranking' ? overlapRanking(request.text) : undefined;
          return ranking ? { json: ranking } : undefined;
        },
      })
    : undefined;
  try {
    await evaluation.seedWorld(repo, world);
    // Each hit as the resource-service answers it (an ElementContext), which the rerank tool's documents are made of.
    const records = new Map(repo.snapshot().records.map((r) => [r.uri, r]));
    const contextOf = ({ uri, id, aspect, properties, relationships, children }) => ({
      ...{ uri, id, aspect, properties, relationships },
      childIds: children,
    });
    const asked = [];
    for (const question of questions) {
      const hits = await repo.search(question.q, { limit: 10 });
      asked.push({
        question,
        hits: hits.map((h) => ({ uri: h.uri, element: contextOf(records.get(h.uri)) })),
      });
    }
    const rows = [
      [
        'hybrid',
        evaluation.report(
          asked.map((a) =>
            evaluation.resultOf(
              a.question,
              a.hits.map((h) => h.uri),
            ),
          ),
        ),
      ],
    ];
    for (const name of names) {
      const model =
        name === 'scripted'
          ? new llm.OpenAIChatModel({
              baseURL: scripted.baseURL,
              apiKey: 'scripted',
              models: { default: 'scripted' },
              maxRetries: 0,
            })
          : llm.createChatModelFromEnv(modelEnv);
      const label =
        name === 'scripted'
          ? 'hybrid + rerank (scripted: word-overlap stand-in, not a model)'
          : `hybrid + rerank (model ${modelEnv.NOVELRAG_MODELS?.rerank ?? modelEnv.NOVELRAG_MODEL})`;
      const rerank = toolReranker(model);
      const results = [];
      for (const { question, hits } of asked)
        results.push(evaluation.resultOf(question, await rerank(question.q, question.lang, hits)));
      const report = evaluation.report(results);
      rows.push([label, report]);
      console.log(`\n${evaluation.formatReport(`memory, ${label} (${questions.length} questions)`, report)}`);
    }
    console.log('\n### hybrid alone and with rerank (memory store, the same top 10 hits)\n');
    console.log('| ranking | recall@5 | recall@10 | MRR |\n|---|---|---|---|');
    for (const [label, r] of rows)
      console.log(
        `| ${label} | ${r.overall.recallAt5.toFixed(2)} | ${r.overall.recallAt10.toFixed(2)} | ${r.overall.mrr.toFixed(2)} |`,
      );
    return Object.fromEntries(rows);
  } finally {
    await scripted?.close();
    await repo.close();
  }
}

const json = arg('json');
if (json) writeFileSync(json, `${JSON.stringify(out, null, 2)}\n`);
