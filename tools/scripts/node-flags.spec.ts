import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

interface NodeFlagsModule {
  nodeFlagsOf(root: string, app: string): string[];
}

// The Node flags each service is started with (tools/scripts/node-flags.mjs, read by the launcher and the benchmarks).
const ROOT = path.resolve(__dirname, '../..');
let m: NodeFlagsModule;
beforeAll(async () => {
  m = (await import(pathToFileURL(path.join(__dirname, 'node-flags.mjs')).href)) as NodeFlagsModule;
});

describe('per-app Node flags', () => {
  it('starts the gateway with single-threaded GC, flags this Node accepts', () => {
    const flags = m.nodeFlagsOf(ROOT, 'gateway');
    expect(flags).toEqual(['--single-threaded-gc']);
    const run = spawnSync(process.execPath, [...flags, '-e', 'process.stdout.write(process.execArgv[0])'], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('--single-threaded-gc');
  });

  it('gives no flags to an app that asks for none', () => {
    expect(m.nodeFlagsOf(ROOT, 'orchestrator')).toEqual([]);
  });

  it('refuses a field that is not a list of --flags', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'node-flags-'));
    try {
      mkdirSync(path.join(root, 'apps', 'x'), { recursive: true });
      const manifest = path.join(root, 'apps', 'x', 'package.json');
      writeFileSync(manifest, JSON.stringify({ name: 'x', novelrag: { nodeFlags: '--single-threaded-gc' } }));
      expect(() => m.nodeFlagsOf(root, 'x')).toThrow(/nodeFlags must be an array of --flags/);
      writeFileSync(manifest, JSON.stringify({ name: 'x', novelrag: { nodeFlags: ['single-threaded-gc'] } }));
      expect(() => m.nodeFlagsOf(root, 'x')).toThrow(/nodeFlags must be an array of --flags/);
      // What the Dockerfile's unquoted `$(cat /app/node-flags)` would split or expand, so the container would not get
      // the flags npm start and the benchmarks pass (a word after a space would even be taken for the script), and a
      // bare `--`, which ends Node's options (the script is then `--`'s next word).
      for (const flag of ['--', '--title=novelrag gateway', '--max-old-space-size=*', '--x=$(id)']) {
        writeFileSync(manifest, JSON.stringify({ name: 'x', novelrag: { nodeFlags: [flag] } }));
        expect(() => m.nodeFlagsOf(root, 'x')).toThrow(/nodeFlags must be an array of --flags/);
      }
      writeFileSync(
        manifest,
        JSON.stringify({
          name: 'x',
          novelrag: { nodeFlags: ['--max-old-space-size=512', '--stack-trace-limit=50'] },
        }),
      );
      expect(m.nodeFlagsOf(root, 'x')).toEqual(['--max-old-space-size=512', '--stack-trace-limit=50']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
