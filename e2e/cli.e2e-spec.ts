import { busRequest } from '@novelrag/bus';
import { ImportReply, Subjects } from '@novelrag/contracts';
import {
  freePort,
  runNovelrag,
  demoScenario,
  type System,
  installRules,
  startSystem,
} from '@novelrag/testkit';

// The `novelrag` CLI as an OS process against the whole system (every service an OS process, real NATS, the model
// faked at the HTTP boundary with the offline demo's recorded scenario), with Bearer authentication on.
// A test runs up to a dozen CLI processes, a Node start each: under CPU load that takes well past Jest's 30 s default.
jest.setTimeout(120_000);
describe('novelrag CLI against the running system (OS processes, real NATS)', () => {
  let system: System;
  let env: Record<string, string>;
  const KEY = 'cli-e2e-key-0123456789abcdef';
  const cli = (...args: string[]) => runNovelrag(args, env, { timeoutMs: 60_000 });

  beforeAll(async () => {
    system = await startSystem('cli', { env: { NOVELRAG_API_KEYS: KEY, NOVELRAG_AUTH_DISABLED: 'false' } });
    // [Q]: a goal whose decision is slow, so that it can be cancelled while it runs.
    system.fake.once(
      { kind: 'tools', where: (r) => JSON.stringify(r.body).includes('[Q]') },
      { delayMs: 20_000, then: { text: 'too late' } },
    );
    installRules(system.fake, demoScenario().rules);
    env = { NOVELRAG_URL: system.url, NOVELRAG_API_KEY: KEY };
    await busRequest(
      system.nc,
      Subjects.resources.import,
      {
        schemaVersion: 1,
        mode: 'merge',
        aspects: [
          {
            aspect: { name: 'character', childrenKeys: [], metadata: {} },
            elements: [{ id: 'linfeng', properties: { name: '林风', role: 'rival' } }],
          },
          { aspect: { name: 'faction', childrenKeys: [], metadata: {} }, elements: [] },
        ],
      },
      ImportReply,
      { timeoutMs: 10_000 },
    );
  }, 180_000);

  afterAll(async () => {
    await system?.stop();
  });

  it('follows a goal live to completion, answering the confirmation with --yes', async () => {
    const run = await cli(
      'goal',
      'Create a protagonist named 余归 and link her to the Azure Sect',
      '--lang',
      'en',
      '--yes',
    );
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = run.stdout.split('\n');
    const first = (prefix: string) => lines.findIndex((l) => l.startsWith(prefix));
    // Phase by phase, in order.
    const order = [
      '▶ accepted',
      '[assessment]',
      '[discovery #1]',
      '[decision #',
      '[verdict #',
      '[tool] →',
      '[confirm]',
      '(answered: approve)',
      '[tool] ←',
      '✔ completed',
    ];
    const at = order.map(first);
    expect(at.every((n) => n >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(run.stdout).toContain('余归 now exists as the protagonist');
    const json = await cli(
      'goal',
      'Create a protagonist named 余归 and link her to the Azure Sect',
      '--json',
      '--no',
    );
    const records = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; goal?: { status: string } });
    expect(records[0]).toMatchObject({ type: 'accepted' });
    expect(records.filter((r) => r.type === 'event').length).toBeGreaterThan(5);
    expect(records[records.length - 1]).toMatchObject({ type: 'goal' });
  }, 120_000);

  it('reads the repository: get, search, aspects (readable and --json)', async () => {
    const get = await cli('get', '/character/yugui');
    expect(get).toMatchObject({ code: 0, stderr: '' });
    expect(get.stdout).toContain('/character/yugui\nproperties:\n  name: 余归');
    const json = await cli('get', '/character/yugui', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      kind: 'element',
      element: { properties: { name: '余归' } },
    });
    const search = await cli('search', '余归', '--limit', '3');
    expect(search.code).toBe(0);
    expect(search.stdout.split('\n')[0]).toMatch(/^1\. \/character\/yugui /);
    expect((await cli('aspects')).stdout).toMatch(/^ASPECT\s+CHILDREN KEYS\s+DESCRIPTION\ncharacter/);
    expect((await cli('tools', '--json')).code).toBe(0);
  });

  it('undoes and redoes, and manages the backlog', async () => {
    // Undo the goals' writes (relationships first) until 余归 is gone, then bring her back.
    let undos = 0;
    while ((await cli('get', '/character/yugui')).code === 0) {
      expect((await cli('undo')).stdout).toMatch(/^Undid/);
      expect(++undos).toBeLessThan(6);
    }
    expect((await cli('get', '/character/yugui')).stderr).toContain('[NOT_FOUND]');
    expect((await cli('redo')).stdout).toMatch(/^Redid 2 actions\.\nchanged: .*\/character\/yugui/);
    expect((await cli('get', '/character/yugui')).code).toBe(0);
    const added = JSON.parse(
      (await cli('backlog', 'add', '写余归的背景', '--priority', '7', '--json')).stdout,
    ) as {
      entry: { id: string };
    };
    expect((await cli('backlog')).stdout).toContain('写余归的背景');
    expect((await cli('backlog', 'remove', added.entry.id)).stdout).toBe(`Removed ${added.entry.id}.\n`);
    expect((await cli('operations', '--limit', '2')).code).toBe(0);
  });

  it('submits, lists, shows and cancels a goal', async () => {
    const submitted = await cli('goal', '[Q] a slow goal', '--goal', '--detach', '--json');
    expect(submitted.code).toBe(0);
    const accepted = JSON.parse(submitted.stdout.trim().split('\n')[0] ?? '') as {
      goalId: string;
      status: string;
    };
    expect(accepted).toMatchObject({ type: 'accepted', status: 'queued' });
    const id = accepted.goalId;
    expect((await cli('show', id)).stdout).toContain(id);
    const list = JSON.parse((await cli('goals', '--json', '--limit', '5')).stdout) as {
      goals: { goalId: string }[];
    };
    expect(list.goals.map((g) => g.goalId)).toContain(id);
    expect((await cli('goals')).stdout).toContain('[Q] a slow goal');
    const cancelled = await cli('cancel', id);
    expect(cancelled.code).toBe(0);
    const follow = await cli('follow', id, '--poll', '200', '--wait', '20000');
    expect(follow.code).toBe(1);
    expect(follow.stdout).toContain('■ cancelled');
  });

  it('reports gateway errors with codes and exit statuses', async () => {
    const missing = await cli('show', 'g-missing');
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('error [NOT_FOUND]: goal g-missing does not exist');
    const notPending = await runNovelrag(['answer', 'g-missing', 'i-1', '--approve', '--json'], env);
    expect(notPending.code).toBe(4);
    expect(JSON.parse(notPending.stderr)).toEqual({
      error: {
        code: 'NOT_FOUND',
        message: 'goal g-missing does not exist',
        status: 404,
        details: { goalId: 'g-missing' },
      },
    });
    const badKey = await runNovelrag(['goals'], { ...env, NOVELRAG_API_KEY: 'wrong-key-0123456789' });
    expect(badKey.code).toBe(4);
    expect(badKey.stderr).toContain('[UNAUTHORIZED]');
    const invalid = await cli('get', 'character');
    expect(invalid.code).toBe(4);
    expect(invalid.stderr).toContain('[VALIDATION_FAILED]');
    const down = await runNovelrag(['goals'], {
      ...env,
      NOVELRAG_URL: `http://127.0.0.1:${await freePort()}`,
    });
    expect(down.code).toBe(3);
    expect(down.stderr).toContain('[UNREACHABLE]');
    expect((await cli('answer', 'g-1', 'i-1')).code).toBe(2);
  });
});
