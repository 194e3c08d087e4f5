import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChaosHuman, retryAfterMs } from './human';

describe('ChaosHuman', () => {
  let server: Server;
  const seen: number[] = [];

  beforeAll(async () => {
    // Rate limited on the first try (Retry-After 1 s), accepted on the next: a real client waits and tries again.
    server = createServer((req, res) => {
      req.resume();
      seen.push(Date.now());
      if (seen.length === 1) {
        res.writeHead(429, { 'retry-after': '1' }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers again after a 429, once its Retry-After passed', async () => {
    const { port } = server.address() as AddressInfo;
    const human = new ChaosHuman(`http://127.0.0.1:${port}`, {
      answerRate: 1,
      approveRate: 1,
      maxThinkMs: 0,
      random: () => 0,
      log: () => undefined,
    });
    human.hear({
      kind: 'interaction.requested',
      goalId: 'g-1',
      threadId: 't-1',
      seq: 0,
      at: new Date().toISOString(),
      interaction: { interactionId: 'ia-1' },
    } as unknown as Parameters<ChaosHuman['hear']>[0]);
    await human.settle();
    expect(human.answers).toEqual([{ goalId: 'g-1', interactionId: 'ia-1', approved: true, status: 200 }]);
    expect(seen).toHaveLength(2);
    expect(seen[1]! - seen[0]!).toBeGreaterThanOrEqual(900); // it waited (a lower bound only: load can only add)
  });

  it('bounds the Retry-After it honours', () => {
    expect(retryAfterMs('3')).toBe(3_000);
    expect(retryAfterMs('0')).toBe(1_000);
    expect(retryAfterMs('3600')).toBe(10_000);
    expect(retryAfterMs('soon')).toBe(1_000);
    expect(retryAfterMs(null)).toBe(1_000);
  });
});
