import { connect, type NatsConnection } from '@nats-io/transport-node';
import { gather } from './gather';

describe('gather (scatter-gather that ends when the answers stop)', () => {
  // The test kit depends on this lib, so this suite uses the machine's NATS directly (NATS_URL or the default).
  const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  let nc: NatsConnection;
  const responders: NatsConnection[] = [];
  const subject = (name: string) => `test.gather.${process.pid}.${name}`;

  beforeAll(async () => {
    nc = await connect({ servers: NATS_URL });
  });
  afterEach(async () => {
    for (const r of responders.splice(0)) await r.close();
  });
  afterAll(async () => {
    await nc?.close();
  });

  /** `count` responders on `subj`, each its own connection (as separate services are). */
  const respond = async (subj: string, count: number) => {
    for (let i = 0; i < count; i++) {
      const r = await connect({ servers: NATS_URL });
      r.subscribe(subj, {
        callback: (_err, msg) => {
          msg.respond(JSON.stringify({ i }));
        },
      });
      await r.flush();
      responders.push(r);
    }
  };

  // An hour-long bound: a gather that waited for it instead of the answers' end would fail by the test's timeout.
  const HOUR = 3_600_000;

  it('collects every answer and ends once they stop arriving, long before its bound', async () => {
    const subj = subject('many');
    await respond(subj, 4);
    const answers = await gather(nc, subj, { maxWaitMs: HOUR });
    expect(answers.map((m) => (m.json() as { i: number }).i).sort()).toEqual([0, 1, 2, 3]);
  });

  it('ends at once with nothing when nobody listens', async () => {
    await expect(gather(nc, subject('nobody'), { maxWaitMs: HOUR })).resolves.toEqual([]);
  });

  it('waits for a late first answer up to its bound', async () => {
    const subj = subject('late');
    const r = await connect({ servers: NATS_URL });
    responders.push(r);
    let answer: () => void = () => undefined;
    r.subscribe(subj, {
      callback: (_err, msg) => {
        answer = () => void msg.respond('{"late":true}');
      },
    });
    await r.flush();
    const pending = gather(nc, subj, { maxWaitMs: HOUR });
    // Answer only once the request has certainly arrived (a round trip on the responder's connection after it).
    await nc.flush();
    await r.flush();
    answer();
    const answers = await pending;
    expect(answers.map((m) => m.json())).toEqual([{ late: true }]);
  });
});
