import type { ToolContext } from '@novelrag/tool-kit';
import { Agent, fetch } from 'undici';
import { isPrivateAddress, privateHostProblem, publicOnlyLookup } from './address-guard';
import { webExtractTool } from './web-extract.tool';
import { webSearchTool } from './web-search.tool';

const ctx = { error: () => undefined } as unknown as ToolContext;
const closed = { allowPrivate: false, timeoutMs: 1_000, maxBytes: 1_000 };

describe('the web tools without a network', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.20.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '::1',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    'not-an-ip',
  ])('%s is private', (address) => expect(isPrivateAddress(address)).toBe(true));

  it.each(['93.184.216.34', '8.8.8.8', '2606:2800:220:1::1', '172.32.0.1'])('%s is public', (address) =>
    expect(isPrivateAddress(address)).toBe(false),
  );

  it('checks what a host name resolves to', async () => {
    await expect(privateHostProblem(new URL('http://localhost:8080/'))).resolves.toContain(
      'private or loopback',
    );
    await expect(privateHostProblem(new URL('http://[::1]/'))).resolves.toContain('::1');
  });

  it('refuses a private address again when connecting (the address resolved is the address checked)', async () => {
    const refusal = new Error('refused');
    const agent = new Agent({ connect: { lookup: publicOnlyLookup(() => refusal) } });
    const failure = await fetch('http://localhost:8080/', { dispatcher: agent }).then(
      () => undefined,
      (error: unknown) => error as { cause?: unknown },
    );
    expect(failure?.cause).toBe(refusal);
    await agent.close();
  });

  it('web_extract refuses loopback and private addresses unless allowed', async () => {
    const tool = webExtractTool(closed);
    for (const url of ['http://127.0.0.1:1/', 'http://localhost/', 'http://[::1]/', 'http://192.168.0.1/'])
      await expect(tool.call(ctx, { url }, new AbortController().signal)).resolves.toMatchObject({
        type: 'error',
        code: 'FORBIDDEN',
      });
  });

  it('web_search says clearly when no search service is configured', async () => {
    const output = await webSearchTool(closed).call(ctx, { query: 'x' }, new AbortController().signal);
    expect(output).toMatchObject({ type: 'error', code: 'TOOL_FAILED' });
    expect(output.type === 'error' && output.errorMessage).toContain('NOVELRAG_WEB_SEARCH_URL');
  });
});
