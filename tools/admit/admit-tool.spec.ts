import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fromSeed } from '@nats-io/nkeys';
import { parseToolOwners } from '@novelrag/contracts';
import { admissionText, admittedConfig, admitTool } from './admit-tool';

const CONFIG = path.join(__dirname, '../../deploy/nats/nats.conf');
const PASSWORDS = {
  NATS_GATEWAY_PASSWORD: 'a',
  NATS_ORCHESTRATOR_PASSWORD: 'b',
  NATS_TOOL_RUNNER_PASSWORD: 'c',
  NATS_RESOURCES_PASSWORD: 'd',
  NATS_TOOL_EXAMPLES_PASSWORD: 'e',
  NATS_MCP_BRIDGE_PASSWORD: 'f',
};

describe('admitting a third-party tool (npm run admit-tool)', () => {
  it('makes an nkey identity whose seed matches the public key in the stanza', () => {
    const a = admitTool('weather', ['Forecast', 'Radar']);
    expect(a.seed).toMatch(/^SU[A-Z2-7]+$/);
    expect(fromSeed(new TextEncoder().encode(a.seed)).getPublicKey()).toBe(a.publicKey);
    expect(a.usersEntry).toContain(`nkey: ${a.publicKey}`);
    expect(a.usersEntry).not.toContain(a.seed);
    expect(a.usersEntry).toContain('"novelrag.tools.Forecast.invoke novelrag-tools"');
    expect(a.usersEntry).toContain('"$SRV.*.novelrag-tools-weather.>"');
    expect(a.usersEntry).toContain('"$KV.tool-results-weather.>"');
    expect(a.usersEntry).not.toMatch(/"_INBOX\.>"|novelrag\.tools\.\*|\$JS\.API\.>/);
    expect(admissionText(a)).toContain(`NATS_NKEY_SEED=${a.seed}`);
  });

  it('extends NOVELRAG_TOOL_OWNERS and refuses built-in, malformed and already admitted names', () => {
    const a = admitTool('weather', ['Forecast'], 'examples=DiceRoll,WordCount');
    expect(parseToolOwners(a.owners)).toEqual({ examples: ['DiceRoll', 'WordCount'], weather: ['Forecast'] });
    expect(() => admitTool('evil', ['ResourceWriteTool'])).toThrow(/built-in/);
    expect(() => admitTool('evil', ['DiceRoll'], a.owners)).toThrow(/admitted to both/);
    expect(() => admitTool('bad.suffix', ['X'])).toThrow(/suffix/);
    expect(() => admitTool('empty', [])).toThrow(/at least one tool/);
  });

  it('gives a stanza that nats-server -t accepts in deploy/nats/nats.conf', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'novelrag-admit-'));
    try {
      const file = path.join(dir, 'nats.conf');
      writeFileSync(file, admittedConfig(readFileSync(CONFIG, 'utf8'), admitTool('weather', ['Forecast'])));
      const check = spawnSync('nats-server', ['-t', '-c', file], {
        env: { PATH: process.env['PATH'] ?? '', ...PASSWORDS },
        encoding: 'utf8',
      });
      expect({ status: check.status, stderr: check.stderr }).toEqual({
        status: 0,
        stderr: expect.any(String),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
