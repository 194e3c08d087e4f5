import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BaseEnv } from './config';
import { busTlsFromEnv, connectBus } from './connect';

/** A port nothing listens on now (the OS picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

// A nats-server that requires TLS, with a self-signed certificate made here with openssl.
describe('NATS over TLS (NATS_TLS_CA, self-signed server certificate)', () => {
  let dir: string;
  let server: ChildProcess;
  let url: string;
  let output = '';

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'novelrag-tls-'));
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { encoding: 'utf8' },
    );
    if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
    const port = await freePort();
    await writeFile(
      path.join(dir, 'tls.conf'),
      `listen: 127.0.0.1:${port}\ntls { cert_file: "${dir}/cert.pem", key_file: "${dir}/key.pem" }\n`,
    );
    server = spawn('nats-server', ['-c', path.join(dir, 'tls.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    // Ready when it says so in its log (bounded: a server that exits or stays silent fails the suite).
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nats-server did not start:\n${output}`)), 15_000);
      const hear = (d: Buffer) => {
        output += d.toString();
        if (output.includes('Server is ready')) {
          clearTimeout(timer);
          resolve();
        }
      };
      server.stdout?.on('data', hear);
      server.stderr?.on('data', hear);
      server.once('exit', () => {
        clearTimeout(timer);
        reject(new Error(`nats-server exited:\n${output}`));
      });
    });
    url = `nats://127.0.0.1:${port}`;
  });

  afterAll(async () => {
    if (server?.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('connects with the CA from the environment, and the connection is encrypted end to end', async () => {
    const env = BaseEnv.parse({ NATS_URL: url, NATS_TLS_CA: path.join(dir, 'cert.pem') });
    const tls = busTlsFromEnv(env);
    expect(tls).toEqual({ caFile: path.join(dir, 'cert.pem') });
    const nc = await connectBus({ url, name: 'tls-test', connectTimeoutMs: 10_000, ...(tls ? { tls } : {}) });
    try {
      expect(nc.info?.tls_required).toBe(true);
      const sub = nc.subscribe('tls.echo', { max: 1, callback: (_e, m) => void m.respond(m.data) });
      expect((await nc.request('tls.echo', 'over tls', { timeout: 5_000 })).string()).toBe('over tls');
      await sub.closed;
    } finally {
      await nc.close();
    }
  });

  it('refuses a server whose certificate the client does not trust, and a client without TLS', async () => {
    // No CA: the self-signed certificate is not trusted by the system CAs.
    await expect(
      connectBus({
        url: `tls://127.0.0.1:${new URL(url).port}`,
        name: 'untrusting',
        connectTimeoutMs: 1_500,
        tls: {},
      }),
    ).rejects.toThrow(/cannot connect to NATS/);
    expect(busTlsFromEnv(BaseEnv.parse({ NATS_URL: url }))).toBeUndefined();
    await expect(connectBus({ url, name: 'plain', connectTimeoutMs: 1_500 })).rejects.toThrow(
      /cannot connect to NATS/,
    );
  });
});
