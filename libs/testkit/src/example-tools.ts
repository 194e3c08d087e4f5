import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT as ROOT } from './repo-root';

/** Where Debian's Go packages put their sources (GOPATH mode: no module download, no network). */
const DEBIAN_GOPATH = '/usr/share/gocode';
export const GO_TOOL_BINARY = path.join(ROOT, 'examples/go-tool/dist/go-tool');

/**
 * Builds examples/go-tool with the NATS Go client from Debian's packages (`golang-go`,
 * `golang-github-nats-io-go-nats-dev`; `.ci/run` installs them). Throws naming the packages when they are missing.
 */
export function buildGoTool(): void {
  const natsClient = path.join(DEBIAN_GOPATH, 'src/github.com/nats-io/nats.go');
  if (!existsSync(natsClient))
    throw new Error(
      `the Go NATS client is missing (${natsClient}): apt-get install golang-go golang-github-nats-io-go-nats-dev`,
    );
  const r = spawnSync('go', ['build', '-o', GO_TOOL_BINARY, './examples/go-tool'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: {
      ...process.env,
      GO111MODULE: 'off',
      GOPATH: DEBIAN_GOPATH,
      GOFLAGS: '',
      GOCACHE: process.env['GOCACHE'] ?? path.join(ROOT, 'tmp/go-cache'),
    },
  });
  if (r.error) throw new Error(`cannot run go (apt-get install golang-go): ${r.error.message}`);
  if (r.status !== 0) throw new Error(`go build failed:\n${r.stdout}\n${r.stderr}`);
}

export interface ExampleTool {
  readonly child: ChildProcess;
  readonly output: () => string;
}

/** Starts a reference tool (the Go binary, or the Python script) and resolves once it prints "ready" (bounded). */
export function startExampleTool(
  language: 'go' | 'python',
  env: Record<string, string>,
  timeoutMs = 20_000,
): Promise<ExampleTool> {
  const [command, args] =
    language === 'go' ? [GO_TOOL_BINARY, []] : ['python3', [path.join(ROOT, 'examples/python-tool/tool.py')]];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the ${language} tool did not get ready within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (d: Buffer) => {
      output += d.toString();
      if (/^ready$/m.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', (err) => (clearTimeout(timer), reject(err)));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the ${language} tool exited with ${String(code)}:\n${output}`));
    });
  });
}

/** Stops a tool process and waits for it to exit (SIGKILL after a bound). */
export function stopExampleTool(
  tool: ExampleTool | undefined,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<void> {
  const child = tool?.child;
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => (clearTimeout(timer), resolve()));
    child.kill(signal);
  });
}
