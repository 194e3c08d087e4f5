#!/usr/bin/env node
// `npm run loop:cost`: runs a scripted three-step pursuit through the real ActionDetermineLoop (real templates, an
// in-memory repository, the strict scripted model whose token counts are prompt characters / 4) and prints the LLM
// calls and prompt tokens per phase, for the English and the Chinese templates. No network, no real model.
// `--lang en` (or zh) runs one language only.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ensureEnv, root, bin } from './ensure-env.mjs';

await ensureEnv(import.meta.url);

const build = spawnSync(bin('tsc'), ['-b', 'apps/orchestrator/tsconfig.app.json'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) {
  console.error('[novelrag] build failed');
  process.exit(build.status ?? 1);
}

const require = createRequire(path.join(root, 'apps/orchestrator/package.json'));
const { ActionDetermineLoop } = require('./dist/loop');
const { InMemoryResources } = require('./dist/loop/test-support/in-memory-resources');
const S = require('./dist/loop/test-support/script');
const { ToolCatalog, userGoal } = require('@novelrag/agenturn');
const { ScriptedChatModel, RecordingExecutionContext, fakeTool } = require('@novelrag/agenturn/testing');
const { NunjucksPromptRenderer, findTemplatesRoot } = require('@novelrag/llm');

const argLang = process.argv.indexOf('--lang');
const languages = argLang > 0 ? [process.argv[argLang + 1]] : ['en', 'zh'];

function repository() {
  return new InMemoryResources(
    [
      InMemoryResources.aspect('character', 'People of the story'),
      InMemoryResources.aspect('faction', 'Sects and clans'),
    ],
    [
      {
        uri: '/character/yu_gui',
        properties: {
          name: '余归',
          role: 'protagonist',
          background:
            'An orphan raised by the Azure Sect, she hides a sword intent that frightens her masters.',
        },
        relationships: { '/faction/azure_sect': ['disciple of'] },
      },
      { uri: '/character/old_chen', properties: { name: 'Old Chen', role: 'mentor' } },
      { uri: '/faction/azure_sect', properties: { name: 'Azure Sect', motto: 'Still water runs deep' } },
    ],
  );
}

const createElement = fakeTool({
  name: 'create_element',
  description: 'Creates an element in an aspect with generated content',
  prerequisites: 'The aspect exists; the element id is not taken',
  outputDescription: 'A summary of the created element',
  inputSchema: {
    type: 'object',
    properties: { aspect: { type: 'string' }, id: { type: 'string' }, description: { type: 'string' } },
    required: ['aspect', 'id', 'description'],
  },
});
const linkResources = fakeTool({
  name: 'link_resources',
  description: 'Writes a relationship between two resources, both directions',
  inputSchema: {
    type: 'object',
    properties: { source: { type: 'string' }, target: { type: 'string' }, relation: { type: 'string' } },
    required: ['source', 'target', 'relation'],
  },
});
const createAspect = fakeTool({
  name: 'create_aspect',
  description: 'Creates a new aspect with LLM-written metadata',
  inputSchema: { type: 'object', properties: { name: { type: 'string' } } },
});

/** Three steps: create 林风 (with one refine round), link him to 余归, then finalize. */
const steps = [
  [
    S.assess(S.assessmentOf('Create 林风 and link him to 余归 as her rival')),
    S.discover({ search_queries: ['余归', '林风'], expand_tools: ['create_element'] }),
    S.relevance({ exclude_resources: ['/character/old_chen'], sorted_segments: ['/character/yu_gui'] }),
    S.discover(),
    S.callTool('create_element', { aspect: 'character', id: 'lin_feng', description: '林风, rival of 余归' }),
    S.refine(S.assessmentOf('Create 林风', { required_context: 'whether 林风 already exists' }), {
      search_terms: ['Lin Feng'],
    }),
    S.discover(),
    S.callTool('create_element', { aspect: 'character', id: 'lin_feng', description: '林风, rival of 余归' }),
    S.approve(),
  ],
  [
    S.assess(S.assessmentOf('Link 林风 to 余归')),
    S.discover({ query_resources: ['/character/lin_feng'], expand_tools: ['link_resources'] }),
    S.relevance({ collapse_tools: ['create_element'] }),
    S.discover(),
    S.callTool('link_resources', {
      source: '/character/lin_feng',
      target: '/character/yu_gui',
      relation: 'rival of',
    }),
    S.approve(),
  ],
  [
    S.assess(S.assessmentOf('Nothing')),
    S.discover(),
    S.finalize('success', '林风 now exists and is 余归’s rival.'),
    S.approve(),
  ],
];

async function run(lang) {
  const calls = [];
  const observer = new S.RecordingObserver();
  const resources = repository();
  const catalog = new ToolCatalog([createElement, linkResources, createAspect]);
  const loop = new ActionDetermineLoop({
    model: new ScriptedChatModel(steps.flat()),
    renderer: new NunjucksPromptRenderer({ root: findTemplatesRoot({}) }),
    resources,
    observer,
    lang,
  });
  const executed = [];
  const goal = userGoal('Create 林风 as the rival of 余归 and link them', 'Create 林风 as 余归’s rival');
  for (let i = 0; i < steps.length; i += 1) {
    const decision = await loop.determineAction({
      beliefs: [],
      progress: { goal, executedSteps: [...executed] },
      tools: catalog,
      ctx: new RecordingExecutionContext(),
    });
    if (decision.kind === 'operation') {
      const now = new Date().toISOString();
      executed.push({
        operation: decision,
        status: 'success',
        result: `Done: ${decision.tool}`,
        errorMessage: null,
        startedAt: now,
        completedAt: now,
      });
    }
  }
  for (const e of observer.of('llm')) calls.push(e.info);
  return calls;
}

const PHASES = [
  'pursuit_assessment',
  'context_discovery',
  'context_relevance',
  'action_decision',
  'refinement_analysis',
];
for (const lang of languages) {
  const calls = await run(lang);
  const rows = PHASES.map((phase) => {
    const mine = calls.filter((c) => c.purpose === phase);
    const prompt = mine.reduce((n, c) => n + c.promptTokens, 0);
    const completion = mine.reduce((n, c) => n + c.completionTokens, 0);
    return {
      phase,
      calls: mine.length,
      promptTokens: prompt,
      avgPrompt: mine.length ? Math.round(prompt / mine.length) : 0,
      completionTokens: completion,
    };
  });
  const total = rows.reduce(
    (t, r) => ({
      calls: t.calls + r.calls,
      promptTokens: t.promptTokens + r.promptTokens,
      completionTokens: t.completionTokens + r.completionTokens,
    }),
    { calls: 0, promptTokens: 0, completionTokens: 0 },
  );
  console.log(`\nLoop cost, templates "${lang}", 3 steps (1 refine round), tokens = characters / 4`);
  console.table([
    ...rows,
    {
      phase: 'total',
      calls: total.calls,
      promptTokens: total.promptTokens,
      avgPrompt: Math.round(total.promptTokens / total.calls),
      completionTokens: total.completionTokens,
    },
  ]);
}
