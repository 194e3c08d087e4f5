import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BUILTIN_TOOLS } from '@novelrag/contracts';
import { builtinTools } from './builtin-tools';

// A built-in tool name belongs to the tool-runners: the list the orchestrator and the NATS config rely on must be
// exactly the tools a runner serves.
describe('the built-in tool names', () => {
  it('are the tools the runner serves', () => {
    const tools = builtinTools({
      resources: {} as never,
      llm: {} as never,
      memory: {} as never,
      random: Math.random,
      web: { allowPrivate: false, timeoutMs: 1_000, maxBytes: 1_000 },
    });
    expect(tools.map((t) => t.name)).toEqual([...BUILTIN_TOOLS]);
  });

  it('are the only tool subjects the tool-runner identity may subscribe to in deploy/nats/nats.conf', () => {
    const conf = readFileSync(path.join(__dirname, '../../../../deploy/nats/nats.conf'), 'utf8');
    const block = conf.slice(conf.indexOf('TOOL_RUNNER = {'), conf.indexOf('RESOURCES = {'));
    const subjects = [...block.matchAll(/"(novelrag\.tools\.[^"]*)"/g)].map((m) => m[1]);
    expect(subjects.filter((s) => s !== 'novelrag.tools.changed')).toEqual(
      BUILTIN_TOOLS.map((name) => `novelrag.tools.${name}.invoke novelrag-tools`),
    );
  });
});
