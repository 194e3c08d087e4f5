import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { bridgedName, hintsOf, outputOf } from './bridged-tool';
import { BridgeConfig } from './config';

const tool = (annotations?: Tool['annotations']): Tool => ({
  name: 't',
  inputSchema: { type: 'object' },
  ...(annotations ? { annotations } : {}),
});

describe('MCP tools as NovelRAG tools', () => {
  it('prefixes names with the server and keeps them within the tool-name alphabet and length', () => {
    expect(bridgedName('everything', 'get-sum')).toBe('everything_get-sum');
    expect(bridgedName('fs', 'read.file/v2')).toBe('fs_read_file_v2');
    expect(bridgedName('p', 'x'.repeat(100))).toHaveLength(64);
  });

  it("maps MCP annotations to hints with MCP's defaults (not read-only means destructive unless said otherwise)", () => {
    expect(hintsOf(tool())).toEqual({ readOnly: false, destructive: true, idempotent: false });
    expect(hintsOf(tool({ readOnlyHint: true }))).toEqual({
      readOnly: true,
      destructive: false,
      idempotent: true,
    });
    expect(hintsOf(tool({ destructiveHint: false, idempotentHint: true }))).toEqual({
      readOnly: false,
      destructive: false,
      idempotent: true,
    });
  });

  it('turns results into text, naming non-text blocks, and MCP tool errors into coded errors', () => {
    expect(
      outputOf({
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', data: 'xx', mimeType: 'image/png' },
          { type: 'resource_link', uri: 'file:///x', name: 'x' },
        ],
      }),
    ).toEqual({ type: 'result', result: 'a\n[image image/png]\n[resource link file:///x]' });
    expect(outputOf({ content: [], structuredContent: { n: 1 } })).toEqual({
      type: 'result',
      result: '{"n":1}',
    });
    expect(outputOf({ content: [{ type: 'text', text: 'bad' }], isError: true })).toEqual({
      type: 'error',
      errorMessage: 'bad',
      code: 'TOOL_FAILED',
    });
  });

  it('accepts a stdio or an HTTP server per name, never both or neither', () => {
    expect(BridgeConfig.safeParse({ servers: { a: { command: 'npx', args: ['x'] } } }).success).toBe(true);
    expect(BridgeConfig.safeParse({ servers: { a: { url: 'https://mcp.example.com/mcp' } } }).success).toBe(
      true,
    );
    expect(BridgeConfig.safeParse({ servers: { a: { command: 'x', url: 'https://e.com' } } }).success).toBe(
      false,
    );
    expect(BridgeConfig.safeParse({ servers: { a: {} } }).success).toBe(false);
    expect(BridgeConfig.safeParse({ servers: { 'a b': { command: 'x' } } }).success).toBe(false);
    expect(BridgeConfig.safeParse({ servers: {} }).success).toBe(false);
  });
});
