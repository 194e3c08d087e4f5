import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, REPO_ROOT } from '@novelrag/testkit';

/** The environment of a fresh terminal without a model key (the offline case the README promises). */
function offlineEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...extra };
  for (const name of [
    'OPENAI_API_KEY',
    'OPENAI_BASE_URL',
    'NOVELRAG_LLM',
    'NOVELRAG_API_KEYS',
    'NOVELRAG_URL',
  ])
    delete env[name];
  return env;
}

function waitForOutput(
  child: ChildProcess,
  text: string,
  timeoutMs: number,
  output: () => string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "${text}" within ${timeoutMs} ms:\n${output()}`)),
      timeoutMs,
    );
    const check = () => {
      if (output().includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before "${text}":\n${output()}`));
    });
    check();
  });
}

// The README's first command and the demo, as a newcomer runs them: `npm start` (the launcher) with no model key
// starts NATS, the four services and the scripted model; a service killed with kill -9 is restarted (the launcher
// supervises); `npm run demo --yes --ask "Who is 余归?"` pursues the 余归 goal to completion, then asks who she is (the
// `rag` agent kind): the answer streamed in pieces, its citations verified against the documents the goal wrote;
// Ctrl-C stops everything.
describe('npm start + npm run demo, offline', () => {
  let dataDir: string;
  let launcher: ChildProcess | undefined;
  let out = '';

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'novelrag-start-'));
  });

  afterAll(async () => {
    // After a failure: a clean stop first (SIGKILL would leave its services and NATS server behind), bounded.
    if (launcher && launcher.exitCode === null && launcher.signalCode === null) {
      const child = launcher;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('starts, restarts a killed service, runs the demo to a completed goal and a streamed, cited answer, and stops cleanly on Ctrl-C', async () => {
    const port = await freePort();
    const natsPort = await freePort();
    const env = offlineEnv({
      PORT: String(port),
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      NOVELRAG_DATA_DIR: dataDir,
      NOVELRAG_TOOL_RUNNERS: '1',
      NOVELRAG_SCRIPTED_DELAY_MS: '0',
    });
    launcher = spawn(process.execPath, [path.join(REPO_ROOT, 'tools/scripts/start.mjs')], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    launcher.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    launcher.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    await waitForOutput(launcher, 'NovelRAG is running', 150_000, () => out);
    expect(out).toContain(`NATS: starting`);
    expect(out).toContain('Model         SCRIPTED');
    const runFile = path.join(dataDir, 'run', 'launcher.json');
    const pids = (JSON.parse(readFileSync(runFile, 'utf8')) as { pids: Record<string, number> }).pids;

    // The launcher supervises: kill -9 of the (only) tool-runner, and it is started again and ready (it says so).
    process.kill(pids['tool-runner-1']!, 'SIGKILL');
    await waitForOutput(launcher, 'tool-runner-1        restarted and ready', 90_000, () => out);
    expect(out).toContain('!!! tool-runner-1 exited unexpectedly (SIGKILL) while running.');
    expect(out).toContain('!!! restarting tool-runner-1 in 1 s (restart 1;');
    const restarted = (JSON.parse(readFileSync(runFile, 'utf8')) as { pids: Record<string, number> }).pids;
    expect(restarted['tool-runner-1']).not.toBe(pids['tool-runner-1']);

    const demo = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'tools/scripts/demo.mjs'), '--yes', '--ask', 'Who is 余归?'],
      {
        cwd: REPO_ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let demoOut = '';
    demo.stdout?.on('data', (d: Buffer) => (demoOut += d.toString()));
    demo.stderr?.on('data', (d: Buffer) => (demoOut += d.toString()));
    const demoCode = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => demo.kill('SIGKILL'), 180_000);
      demo.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    expect({ demoCode, demoOut }).toEqual({ demoCode: 0, demoOut: expect.stringContaining('✔ completed') });
    expect(demoOut).toContain('MODEL: SCRIPTED');
    expect(demoOut).toContain('[confirm] ResourceWriteTool asks');
    expect(demoOut).toContain('name: 余归');
    // The question: answered over SSE in streamed pieces (the "Answer:" line is printed by the first piece), every
    // citation verified against the documents the goal wrote.
    const asked = demoOut.slice(demoOut.indexOf('Question (en): Who is 余归?'));
    expect(asked).toContain('MODEL: SCRIPTED — the search, the grading and the answer are recorded');
    expect(asked).toContain('[route] retrieve');
    expect(asked).toContain('[retrieve] "余归" →');
    expect(asked.indexOf('Answer:')).toBeGreaterThan(0);
    expect(Number(/the answer arrived in (\d+) streamed piece/.exec(asked)?.[1])).toBeGreaterThan(1);
    expect(asked).toContain('[answer] 5 citation(s), 0 unverified');
    expect(asked).toContain(
      '/character/yugui ✓ verified: "a quiet and stubborn young woman who never forgets a debt"',
    );
    expect(asked).toContain('/faction/azure_sect ✓ verified: "seat: Azure Peak"');
    expect(asked).toContain('Citations: 5 of 5 verified');

    const stopped = new Promise<number | null>((resolve) => launcher!.once('exit', resolve));
    launcher.kill('SIGINT');
    expect(await stopped).toBe(0);
    expect(out).toContain('[novelrag] stopped');
    expect(existsSync(path.join(dataDir, 'run', 'launcher.json'))).toBe(false);
  }, 360_000);
});
