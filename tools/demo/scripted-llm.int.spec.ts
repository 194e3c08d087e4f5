import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolDefinition } from '@novelrag/agenturn';
import { OpenAIChatModel } from '@novelrag/llm';
import { PursuitAssessment } from '@novelrag/contracts';
import { z } from 'zod';

const ROOT = path.resolve(__dirname, '../..');
const assessment = {
  finished_tasks: [],
  remaining_work_summary: 'create 余归',
  required_context: 'the character aspect',
  expected_actions: 'write',
  boundary_conditions: [],
  exception_conditions: [],
  success_criteria: ['余归 exists'],
};
const ANSWER =
  '余归 is <cite doc_id="doc_1" quote="a quiet and stubborn young woman">a quiet young woman</cite>.';
const scenario = {
  name: 'test',
  model: 'scripted-test',
  rules: [
    { id: 'assess', when: { schema: 'PursuitAssessment' }, reply: { json: assessment } },
    {
      id: 'write-first',
      when: { tool: 'Finalize', absent: ['TOOL RESULT'] },
      reply: { content: 'Writing.', toolCall: { name: 'ResourceWrite', arguments: { spec: '余归' } } },
    },
    {
      id: 'then-finalize',
      when: { tool: 'Finalize', contains: ['TOOL RESULT'] },
      reply: { toolCall: { name: 'Finalize', arguments: { status: 'success' } } },
    },
    { id: 'chat', when: { contains: ['hello'] }, reply: { text: 'hi' } },
    { id: 'answer', when: { contains: ['Who is'] }, reply: { text: ANSWER }, chunkDelayMs: 5 },
  ],
};
interface Chunk {
  object: string;
  choices: { finish_reason: string | null }[];
}
const tools: ToolDefinition[] = [
  { name: 'ResourceWrite', description: 'write', parameters: { type: 'object', properties: {} } },
  { name: 'Finalize', description: 'finish', parameters: { type: 'object', properties: {} } },
];

// The offline demo's scripted model as its own OS process, called through the real openai SDK.
describe('scripted LLM server (tools/demo/scripted-llm.mjs)', () => {
  let dir: string;
  let child: ChildProcess;
  let baseURL: string;
  const model = () =>
    new OpenAIChatModel({ baseURL, apiKey: 'x', models: { default: 'scripted-test' }, maxRetries: 0 });

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'scripted-llm-'));
    const file = path.join(dir, 'scenario.json');
    await writeFile(file, JSON.stringify(scenario));
    child = spawn(
      process.execPath,
      [path.join(ROOT, 'tools/demo/scripted-llm.mjs'), '--scenario', file, '--quiet'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    baseURL = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no "listening" line within 10 s: ${out}`)), 10_000);
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (\S+)/.exec(out);
        if (m?.[1]) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
  });

  afterAll(async () => {
    child?.kill('SIGTERM');
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers structured outputs by schema name', async () => {
    const result = await model().structured({
      messages: [{ role: 'user', content: 'assess' }],
      schema: PursuitAssessment,
      schemaName: 'PursuitAssessment',
      purpose: 'assess',
    });
    expect(result.value).toEqual(assessment);
  });

  it('answers tool calls by the offered tools and the conversation so far', async () => {
    const first = await model().callTools({
      messages: [{ role: 'user', content: 'decide' }],
      tools,
      toolChoice: 'required',
      purpose: 'decide',
    });
    expect(first.value.toolCalls).toEqual([
      expect.objectContaining({ name: 'ResourceWrite', arguments: { spec: '余归' } }),
    ]);
    expect(first.value.content).toBe('Writing.');
    const second = await model().callTools({
      messages: [{ role: 'user', content: 'decide. TOOL RESULT: created' }],
      tools,
      toolChoice: 'required',
      purpose: 'decide',
    });
    expect(second.value.toolCalls[0]?.name).toBe('Finalize');
  });

  it('streams a text answer in pieces, with its usage, through the SDK', async () => {
    const stream = model().stream({
      messages: [{ role: 'user', content: 'Who is 余归?' }],
      purpose: 'answer',
    });
    const pieces: string[] = [];
    for await (const piece of stream) pieces.push(piece);
    expect(pieces.length).toBeGreaterThan(3);
    expect(pieces.join('')).toBe(ANSWER);
    const result = await stream.result;
    expect(result.value).toEqual({ content: ANSWER, toolCalls: [] });
    expect(result.usage.completionTokens).toBeGreaterThan(0);
    expect(result.usage.totalTokens).toBe(result.usage.promptTokens + result.usage.completionTokens);
  });

  it('streams a tool call when tools are offered', async () => {
    const stream = model().stream({
      messages: [{ role: 'user', content: 'decide' }],
      tools,
      toolChoice: 'required',
      purpose: 'decide',
    });
    const { value } = await stream.result;
    expect(value.content).toBe('Writing.');
    expect(value.toolCalls).toEqual([
      expect.objectContaining({ name: 'ResourceWrite', arguments: { spec: '余归' } }),
    ]);
  });

  it('sends OpenAI chunk events, the usage chunk only when asked for, then [DONE]', async () => {
    const raw = async (streamOptions: object) => {
      const res = await fetch(`${baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'm',
          stream: true,
          ...streamOptions,
          messages: [{ role: 'user', content: 'hello' }],
        }),
      });
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      return (await res.text()).split('\n\n').filter(Boolean);
    };
    const withUsage = await raw({ stream_options: { include_usage: true } });
    expect(withUsage.at(-1)).toBe('data: [DONE]');
    const chunks = withUsage.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, '')) as Chunk);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { completion_tokens: 1 } });
    const without = await raw({});
    expect(without.some((e) => e.includes('"usage"'))).toBe(false);
  });

  it('fails a request no rule answers, naming what was asked, and counts it', async () => {
    await expect(
      model().structured({
        messages: [{ role: 'user', content: 'x' }],
        schema: z.object({ a: z.string() }),
        schemaName: 'Unknown',
        purpose: 'p',
      }),
    ).rejects.toThrow(/HTTP 500/);
    const raw = await fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'm',
        messages: [],
        tools: [{ type: 'function', function: { name: 'Other' } }],
      }),
    });
    expect(raw.status).toBe(500);
    expect(raw.headers.get('x-should-retry')).toBe('false');
    expect(((await raw.json()) as { error: { message: string } }).error.message).toContain(
      'has no answer for this request (no schema, tools [Other])',
    );
    const info = (await (await fetch(baseURL.replace(/\/v1$/, '/scripted/info'))).json()) as Record<
      string,
      unknown
    >;
    expect(info).toMatchObject({ scripted: true, scenario: 'test', unmatched: 2 });
    expect(info['served']).toBeGreaterThanOrEqual(3);
  });
});
