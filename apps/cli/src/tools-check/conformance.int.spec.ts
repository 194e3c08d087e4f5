import { type Service, Svcm } from '@nats-io/services';
import type { NatsConnection } from '@nats-io/transport-node';
import { MicroServiceNames, Subjects, encodeToolMetadata } from '@novelrag/contracts';
import { connectTestNats, startNats, uniqueName, type NatsServerHandle } from '@novelrag/testkit';
import { ToolHost, defineTool } from '@novelrag/tool-kit';
import { runCli } from '../cli';
import type { CliIo } from '../io';
import { PLAIN } from '../render/text';
import { runConformance } from './conformance';
import type { CheckResult } from './report';

function recordingIo(): CliIo & { readonly lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    out: (t) => lines.push(t),
    err: (t) => lines.push(t),
    write: (t) => lines.push(t),
    status: () => undefined,
    interactive: false,
    style: PLAIN,
    ask: () => Promise.resolve(undefined),
  };
}

const byCheck = (results: readonly CheckResult[]) => new Map(results.map((r) => [r.check, r]));

const TALLY_SCHEMA = {
  type: 'object',
  properties: { label: { type: 'string', minLength: 1 }, holdMs: { type: 'integer', minimum: 0 } },
  required: ['label'],
  additionalProperties: false,
};

describe('novelrag tools check (conformance against a live tool)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let host: ToolHost;
  let broken: Service;
  const good = uniqueName('CheckedTally');
  const bad = uniqueName('BrokenTally');
  let brokenRuns = 0;

  beforeAll(async () => {
    nats = await startNats();
    nc = await connectTestNats(nats.url);
    let runs = 0;
    host = new ToolHost({
      connection: nc,
      serviceName: MicroServiceNames.toolService(uniqueName('check')),
      version: '1.0.0',
      instanceId: uniqueName('check-host'),
      idempotency: { bucket: uniqueName('check_results'), required: true },
      tools: [
        defineTool({
          name: good,
          description: 'counts its calls (writes, not idempotent)',
          inputSchema: TALLY_SCHEMA,
          handler: async (params, _ctx, signal) => {
            const hold = Number(params['holdMs'] ?? 0);
            if (hold > 0)
              await new Promise<void>((resolve) => {
                const timer = setTimeout(resolve, hold);
                signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
              });
            runs += 1;
            return `${String(params['label'])} #${runs}`;
          },
        }),
      ],
    });
    await host.start();
    // A tool written by hand that gets most of the contract wrong: default queue group, an unknown schema dialect, no
    // check of the invocation, no deadline or cancel, no record of invocation ids, errors without headers.
    broken = await new Svcm(nc as never).add({
      name: MicroServiceNames.toolService(uniqueName('broken')),
      version: '0.1.0',
    });
    broken.addEndpoint(bad, {
      subject: Subjects.toolInvoke(bad),
      metadata: encodeToolMetadata({
        description: 'gets the contract wrong',
        inputSchema: { ...TALLY_SCHEMA, $schema: 'https://example.com/my-own-dialect' },
        readOnly: false,
        destructive: false,
        idempotent: false,
        schemaVersion: 1,
      }),
      handler: (_err, msg) => {
        const body = msg.json<{ params?: { label?: string } }>();
        if (!body.params?.label) {
          msg.respond(
            JSON.stringify({
              type: 'error',
              error: { code: 'VALIDATION_FAILED', message: 'label', retryable: false },
            }),
          );
          return;
        }
        brokenRuns += 1;
        msg.respond(JSON.stringify({ type: 'result', result: `ran ${brokenRuns}` }));
      },
    });
    await nc.flush();
  }, 60_000);

  /** `novelrag tools check <tool>` in process, with a slow call for the cancel check. */
  async function cliCheck(tool: string) {
    const io = recordingIo();
    const slow = JSON.stringify({ label: 's', holdMs: 600_000 });
    const code = await runCli(['tools', 'check', tool, '--nats', nats.url, '--slow-params', slow], {}, io);
    return { io, code };
  }

  afterAll(async () => {
    await host?.stop(1_000);
    await broken?.stop();
    await nc?.close();
    await nats?.stop();
  });

  it('passes every check on a tool hosted by the tool kit, and exits 0', async () => {
    const { io, code } = await cliCheck(good);
    const report = io.lines.join('\n');
    expect(report).not.toMatch(/^FAIL/m);
    expect(report).toMatch(/^PASS cancel .*CANCELLED/m);
    expect(report).toMatch(/^PASS duplicate \(sequential\) .*both answered result/m);
    expect(report).toMatch(/^PASS error headers/m);
    expect(report).toContain(`${good}: all`);
    expect(code).toBe(0);
  }, 120_000);

  it('fails a tool that breaks the contract, naming each fault, and exits 1', async () => {
    const { io, code } = await cliCheck(bad);
    expect(code).toBe(1);
    const results = byCheck(
      await runConformance(nc, bad, { timeoutMs: 10_000, slowParams: { label: 's', holdMs: 600_000 } }),
    );
    const failed = (check: string) => {
      const r = results.get(check);
      expect(r?.status).toBe('fail');
      return r?.message ?? '';
    };
    expect(failed('discovery')).toMatch(/queue group q, not novelrag-tools/);
    expect(failed('schema dialect')).toMatch(/\$schema "https:\/\/example.com\/my-own-dialect" is none of/);
    expect(failed('malformed invocation')).toMatch(/expected error VALIDATION_FAILED, got result/);
    expect(failed('deadline')).toMatch(/expected error TIMEOUT, got result/);
    expect(failed('cancel')).toMatch(/expected error CANCELLED, got result/);
    expect(failed('duplicate (sequential)')).toMatch(
      /must answer a repeated invocationId with the first run's output/,
    );
    expect(failed('error headers')).toMatch(/VALIDATION_FAILED answer without the Nats-Service-Error header/);
    expect(results.get('metadata')?.status).toBe('pass');
    expect(results.get('validation')?.status).toBe('pass');
    expect(io.lines.join('\n')).toMatch(new RegExp(`${bad}: \\d+ check\\(s\\) failed`));
  }, 120_000);

  it('says which tool it cannot find', async () => {
    const missing = uniqueName('NoSuchTool');
    const results = byCheck(await runConformance(nc, missing, { timeoutMs: 2_000, discoveryWaitMs: 300 }));
    expect(results.get('discovery')?.message).toContain(
      `no $SRV.INFO answer offers an endpoint on ${Subjects.toolInvoke(missing)}`,
    );
    expect(results.get('call')?.status).toBe('fail');
  }, 60_000);
});
