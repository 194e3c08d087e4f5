import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const FIXTURE = path.join(__dirname, 'fixtures/ensure-env-child.mjs');

/** The machine's own Node (not the project's Node 24), when it is older than 24.9: the re-exec path of ensureEnv. */
function oldSystemNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(candidate)) continue;
    const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout.trim().slice(1);
    const [major = 0, minor = 0] = version.split('.').map(Number);
    if (major < 24 || (major === 24 && minor < 9)) return candidate;
  }
  return undefined;
}

function run(node: string): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  // Its own process group, like a terminal's foreground job, so a signal can go to the whole group as Ctrl-C does.
  const child = spawn(node, [FIXTURE], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const node = oldSystemNode();
if (!node) {
  console.warn(
    'ensure-env re-exec tests NOT RUN: no Node older than 24.9 at /usr/bin/node or /usr/local/bin/node',
  );
}
const describeOld = node ? describe : describe.skip; // skipped only where the path under test cannot happen

describeOld(`ensureEnv re-running a script on the project's Node 24 (from ${node ?? '-'})`, () => {
  const started: ChildProcess[] = [];
  afterEach(() => {
    // Whatever a failed case left behind (e.g. a script orphaned by a launcher that died first).
    for (const child of started.splice(0)) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // the group is gone
      }
    }
  });
  it('Ctrl-C (SIGINT to the process group): the launcher waits for the script to stop and exits with its status', async () => {
    const p = run(node!);
    started.push(p.child);
    await until(() => p.output().includes('running on v24'));
    process.kill(-p.child.pid!, 'SIGINT');
    const code = await p.exited;
    expect(p.output()).toContain('child got SIGINT');
    expect(p.output()).toContain('child stopped'); // printed before the launcher exited
    expect(p.output().match(/child got/g)).toHaveLength(1); // not passed on a second time
    expect(code).toBe(7);
  });

  it('SIGTERM to the launcher alone is passed on to the script', async () => {
    const p = run(node!);
    started.push(p.child);
    await until(() => p.output().includes('running on v24'));
    p.child.kill('SIGTERM');
    const code = await p.exited;
    expect(p.output()).toContain('child got SIGTERM');
    expect(code).toBe(7);
  });
});
