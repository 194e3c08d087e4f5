import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ToolCatalog, userGoal } from '@novelrag/agenturn';
import { RecordingExecutionContext, fakeTool } from '@novelrag/agenturn/testing';
import { busRequest } from '@novelrag/bus';
import { ImportReply, ImportRequest, Subjects } from '@novelrag/contracts';
import { NunjucksPromptRenderer, OpenAIChatModel, findTemplatesRoot } from '@novelrag/llm';
import {
  FakeOpenAIServer,
  type RecordedRequest,
  type NatsServerHandle,
  startNats,
  uniqueName,
} from '@novelrag/testkit';
import { NatsResourceService } from '@novelrag/resource-client';
import { ActionDetermineLoop } from '../loop/action-determine-loop';
import { RecordingObserver, assessmentOf } from '../loop/test-support/script';

const ROOT = path.resolve(__dirname, '../../../..');
const RESOURCE_MAIN = path.join(ROOT, 'apps/resource-service/dist/main.js');

/** Starts the real resource-service from its build (apps may not import each other) and waits for "service ready". */
function startResourceService(natsUrl: string, dataDir: string): Promise<ChildProcess> {
  if (!existsSync(RESOURCE_MAIN)) throw new Error(`${RESOURCE_MAIN} is missing: run \`npm run build\` first`);
  const child = spawn(process.execPath, [RESOURCE_MAIN], {
    cwd: ROOT,
    env: {
      ...process.env,
      NATS_URL: natsUrl,
      NOVELRAG_DATA_DIR: dataDir,
      NOVELRAG_LOG_LEVEL: 'info',
      LANCEDB_LOG: 'error',
      NOVELRAG_INSTANCE_ID: uniqueName('res-loop'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(
      () => reject(new Error(`resource-service not ready within 30 s:\n${output}`)),
      30_000,
    );
    const onData = (d: Buffer) => {
      output += d.toString();
      if (output.includes('service ready')) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`resource-service exited with ${code}:\n${output}`));
    });
  });
}

const systemPrompt = (r: RecordedRequest) => {
  const messages = (r.body as { messages: { role: string; content: string }[] }).messages;
  return messages[0]?.content ?? '';
};

/** The segments a prompt shows: number, URI and the block of text under the heading. */
function segmentsOf(prompt: string): { number: string; uri: string; text: string }[] {
  return prompt
    .split('### Resource segment #')
    .slice(1)
    .map((block) => {
      const head = /^(\d+): (\S+)/.exec(block);
      return { number: head?.[1] ?? '', uri: head?.[2] ?? '', text: block };
    });
}

describe('ActionDetermineLoop against the real resource-service and the OpenAI adapter (fake server)', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let service: ChildProcess | undefined;
  let dataDir: string;
  let llm: FakeOpenAIServer;

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    dataDir = await mkdtemp(path.join(tmpdir(), 'novelrag-loop-'));
    service = await startResourceService(nats.url, dataDir);
    await busRequest(
      nc,
      Subjects.resources.import,
      ImportRequest.parse({
        schemaVersion: 1,
        mode: 'replace',
        aspects: [
          {
            aspect: { name: 'character', description: 'People of the story', childrenKeys: [], metadata: {} },
            elements: [
              {
                id: 'yugui',
                properties: { name: '余归', role: 'protagonist', weapon: 'a nameless sword' },
                relationships: { '/faction/azure_sect': ['弟子 (disciple)'] },
              },
              { id: 'lin_feng', properties: { name: 'Lin Feng', role: 'rival' } },
            ],
          },
          {
            aspect: { name: 'faction', description: 'Sects and clans', childrenKeys: [], metadata: {} },
            elements: [{ id: 'azure_sect', properties: { name: 'Azure Sect' } }],
          },
        ],
      }),
      ImportReply,
      { timeoutMs: 30_000 },
    );
    llm = await FakeOpenAIServer.start();
  }, 60_000);

  afterAll(async () => {
    await llm?.close();
    if (service && service.exitCode === null) {
      const exited = new Promise((resolve) => service?.once('exit', resolve));
      service.kill('SIGTERM');
      await exited;
    }
    await nc?.close();
    await nats?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('finds 余归 by search and grounds the decision in the hit; malformed answers are retried by the adapter', async () => {
    llm
      .once(
        { schemaName: 'PursuitAssessment' },
        { json: assessmentOf('find out who 余归 is and what she carries') },
      )
      // first discovery answer is not JSON: the adapter feeds it back and asks again
      .once({ schemaName: 'DiscoveryPlan' }, { text: 'let me think about it' })
      .once(
        { schemaName: 'DiscoveryPlan' },
        {
          json: {
            discovery_analysis: 'the goal names 余归',
            search_queries: ['余归'],
            query_resources: [],
            expand_tools: [],
          },
        },
      )
      .once({ schemaName: 'RefinementPlan' }, (r) => ({
        json: {
          relevance_analysis: 'the hit is critical',
          exclude_resources: [],
          exclude_properties: [],
          collapse_tools: [],
          // the segment that names 余归 first
          sorted_segments: segmentsOf(systemPrompt(r))
            .sort((a, b) => Number(b.text.includes('余归')) - Number(a.text.includes('余归')))
            .map((x) => x.uri),
        },
      }))
      .once(
        { schemaName: 'DiscoveryPlan' },
        { json: { discovery_analysis: 'enough', search_queries: [], query_resources: [], expand_tools: [] } },
      )
      // an unknown tool first: the adapter rejects it and retries with the feedback
      .once({ kind: 'tools' }, { toolCalls: [{ name: 'delete_everything', arguments: {} }] })
      .once({ kind: 'tools', toolNames: ['Finalize'] }, (r) => {
        // answer only from what the prompt shows: the URI and the weapon come from the search hit
        const hit = segmentsOf(systemPrompt(r)).find((x) => x.text.includes('- name: 余归'));
        const weapon = hit ? /- weapon: ([^\n]+)/.exec(hit.text)?.[1] : undefined;
        const args =
          hit && weapon
            ? {
                status: 'success',
                response: `余归 (${hit.uri}) carries ${weapon}.`,
                evidence: [`segment #${hit.number}`],
                gaps: [],
              }
            : { status: 'failed', response: 'not found', evidence: [], gaps: [] };
        return {
          content: `Segment #${hit?.number ?? '?'} holds 余归.`,
          toolCalls: [{ name: 'Finalize', arguments: args }],
        };
      })
      .once(
        { schemaName: 'RefinementDecision' },
        {
          json: {
            analysis: 'grounded',
            verdict: 'approve',
            approval: { ready: true, confidence: 'high', notes: '' },
            refinement: null,
            exploration_hints: null,
          },
        },
      );

    const observer = new RecordingObserver();
    const loop = new ActionDetermineLoop({
      model: new OpenAIChatModel({
        baseURL: llm.baseURL,
        apiKey: 'k',
        models: { default: 'fake-model' },
        maxRetries: 0,
      }),
      renderer: new NunjucksPromptRenderer({ root: findTemplatesRoot({}) }),
      resources: new NatsResourceService(nc),
      observer,
      lang: 'en',
    });
    const decision = await loop.determineAction({
      beliefs: [],
      progress: { goal: userGoal('Tell what 余归 carries', 'What does 余归 carry?'), executedSteps: [] },
      tools: new ToolCatalog([fakeTool({ name: 'create_element', description: 'Creates an element' })]),
      ctx: new RecordingExecutionContext(),
    });

    expect(decision).toEqual({
      kind: 'resolution',
      status: 'success',
      response: '余归 (/character/yugui) carries a nameless sword.',
      reason: 'Segment #1 holds 余归.',
    });
    expect(llm.pendingHandlers()).toEqual([]);
    expect(loop.workspace().searchHistory[0]).toMatchObject({
      query: '余归',
      uris: expect.arrayContaining(['/character/yugui']),
    });
    expect(loop.toolWorkspace().segments[0]?.uri).toBe('/character/yugui');
    const calls = observer.of('llm').map((e) => [e.info.purpose, e.info.attempts, e.info.ok]);
    expect(calls).toEqual([
      ['pursuit_assessment', 1, true],
      ['context_discovery', 2, true],
      ['context_relevance', 1, true],
      ['context_discovery', 1, true],
      ['action_decision', 2, true],
      ['refinement_analysis', 1, true],
    ]);
    expect(observer.of('llm').every((e) => e.info.model === 'fake-model' && e.info.promptTokens > 0)).toBe(
      true,
    );
  }, 60_000);
});
