import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ModelOutputError } from '@novelrag/agenturn';
import { ScriptedChatModel, type ScriptEntry } from '@novelrag/agenturn/testing';
import {
  BacklogListReply,
  FindReply,
  OperationsListReply,
  Subjects,
  type ToolInvocation,
} from '@novelrag/contracts';
import type { ResourceService } from '@novelrag/resource-client';
import { startNats, uniqueName, type NatsServerHandle } from '@novelrag/testkit';
import { KvToolResultStore, type ToolHost, type ToolResultStore } from '@novelrag/tool-kit';
import {
  applyOperations,
  hostBuiltinTools,
  invokeTool,
  resources,
  serveInteractions,
  startResourceService,
  toolInvocation,
} from '../../test/harness';
import type { StartedProcess } from '../../test/processes';
import { followUpScript, planningScript } from '../../test/write-scripts';

// A ResourceWriteTool call whose runner "crashes" at a chosen point (its NATS connection closes there, so it records
// nothing more and its claim stops being renewed), then retried on another runner with the same invocation id, as the
// orchestrator does. The retry must act on what the first attempt decided: never regenerate, never ask again, and
// report what the repository holds. Crash points are injected (no timing): the first runner's apply, or the recording
// of its result.

const FIRST = 'FIRST-ATTEMPT: ash-grey eyes.';
const LEASE_MS = 1_000;

/** The first attempt's model calls up to the operations (what a retry must not repeat). */
function planning(id: string, appearance: string): ScriptEntry[] {
  return planningScript({ id, name: id, appearance });
}

const followUp = followUpScript;

/**
 * Before its first apply, right after it (the write was sent and applied), at the recording of its result, or where
 * the test's model script calls `crash`.
 */
type CrashPoint = 'apply' | 'after-apply' | 'record' | 'scripted';

describe('ResourceWriteTool retried after its runner crashed', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let rs: StartedProcess;
  const bucket = uniqueName('results');
  const hosts: ToolHost[] = [];
  const connections: NatsConnection[] = [];

  beforeAll(async () => {
    nats = await startNats({ privateServer: true });
    nc = await connect({ servers: nats.url });
    rs = await startResourceService(nc, nats.url);
    await applyOperations(nc, [{ type: 'aspect.create', name: 'character', childrenKeys: [], metadata: {} }]);
  }, 60_000);

  // Every case has its own runners: the retry must reach the healthy runner of its case only.
  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.stop(1_000);
    for (const c of connections.splice(0)) await c.close().catch(() => undefined);
  });

  afterAll(async () => {
    await rs?.stop();
    await nc?.close();
    await nats?.stop();
  });

  /** A runner on its own connection that dies at `point`: the connection closes and the step throws. */
  async function crashingRunner(
    model: ScriptedChatModel,
    point: CrashPoint,
    tool = 'ResourceWriteTool',
  ): Promise<{ died: Promise<void>; crash: () => Promise<never> }> {
    const own = await connect({ servers: nats.url });
    connections.push(own);
    let crashed: () => void = () => undefined;
    const died = new Promise<void>((resolve) => (crashed = resolve));
    const crash = async (): Promise<never> => {
      await own.close();
      crashed();
      throw new Error(`runner crashed at ${point}`);
    };
    const kv = await KvToolResultStore.open(own, { bucket });
    const store: ToolResultStore = {
      read: (id) => kv.read(id),
      claim: (claim) => kv.claim(claim),
      swap: (claim, revision) => kv.swap(claim, revision),
      record: (record) => kv.record(record),
      release: (id, revision) => kv.release(id, revision),
      recordOverClaim: (record, revision) =>
        point === 'record' ? crash() : kv.recordOverClaim(record, revision),
    };
    const crashingApply =
      (service: ResourceService): ResourceService['apply'] =>
      async (request, signal) => {
        if (point === 'after-apply') await service.apply(request, signal);
        return crash();
      };
    const wrap = (service: ResourceService): ResourceService =>
      point === 'record' || point === 'scripted'
        ? service
        : new Proxy(service, {
            get: (target, prop, receiver) =>
              prop === 'apply' ? crashingApply(target) : (Reflect.get(target, prop, receiver) as unknown),
          });
    hosts.push(
      await hostBuiltinTools(own, model, {
        instanceId: uniqueName('runner-dies'),
        random: () => 0,
        only: [tool],
        idempotency: { store, notes: kv.notes(), leaseMs: LEASE_MS },
        resources: wrap,
      }),
    );
    return { died, crash };
  }

  /** A healthy runner on the same results bucket, for the retry. */
  async function healthyRunner(model: ScriptedChatModel, tool = 'ResourceWriteTool'): Promise<void> {
    hosts.push(
      await hostBuiltinTools(nc, model, {
        instanceId: uniqueName('runner-retry'),
        random: () => 0,
        only: [tool],
        idempotency: { bucket, leaseMs: LEASE_MS },
      }),
    );
  }

  /** Sends the first attempt to the crashing runner (the only one serving) and waits for it to die. */
  async function firstAttemptDies(invocation: ToolInvocation, died: Promise<void>): Promise<void> {
    nc.publish(Subjects.toolInvoke(invocation.tool), JSON.stringify(invocation), {
      reply: `_INBOX.${uniqueName('ignored')}`,
    });
    await died;
  }

  function writeCall(goalId: string, id: string): ToolInvocation {
    return toolInvocation(
      'ResourceWriteTool',
      {
        operation_specification: `Create ${id} in /character`,
        content_generation_tasks: [{ description: 'appearance', content_key: 'appearance' }],
      },
      { goalId, deadlineMs: 60_000 },
    );
  }

  async function groupsIn(invocationId: string): Promise<number> {
    const history = await resources(nc, Subjects.resources.operations, { limit: 50 }, OperationsListReply);
    return history.entries.filter((e) => e.group === invocationId).length;
  }

  it('(a) crash after the write, before the result was recorded: the retry applies nothing new, asks nothing, regenerates nothing, and reports the write', async () => {
    const invocation = writeCall('goal-crash-a', 'yu_a');
    const asked = serveInteractions(nc, 'goal-crash-a', () => ({ approved: true }));
    const { died } = await crashingRunner(
      new ScriptedChatModel([...planning('yu_a', FIRST), ...followUp('first summary')]),
      'record',
    );
    await firstAttemptDies(invocation, died);
    expect(await groupsIn(invocation.invocationId)).toBe(1); // the first attempt's write stands

    const retry = new ScriptedChatModel([]);
    await healthyRunner(retry);
    const output = await invokeTool(nc, { ...invocation, attempt: 2 }, 60_000);
    asked.stop();

    // The first attempt's result, recorded as a note before it died: no model call at all, no question.
    expect(output).toMatchObject({ type: 'result', result: 'first summary' });
    expect(retry.calls).toHaveLength(0);
    expect(asked.requests).toHaveLength(1); // the human was asked once, by the first attempt
    const yu = await resources(nc, Subjects.resources.find, { uri: '/character/yu_a' }, FindReply);
    expect(yu).toMatchObject({ element: { properties: { appearance: FIRST } } });
    expect(await groupsIn(invocation.invocationId)).toBe(1);
  }, 90_000);

  it('(a) crash right after the write was applied, and a failing follow-up: the retry reports that the write stands', async () => {
    const invocation = writeCall('goal-crash-a2', 'yu_a2');
    const asked = serveInteractions(nc, 'goal-crash-a2', () => ({ approved: true }));
    const { died } = await crashingRunner(new ScriptedChatModel(planning('yu_a2', FIRST)), 'after-apply');
    await firstAttemptDies(invocation, died);
    const broken = new ModelOutputError({ issues: [], rawOutputLength: 0, attempts: 1, reason: 'refusal' });
    const retry = new ScriptedChatModel([
      ...followUp('unused').slice(0, 2),
      { kind: 'text', purpose: 'summarize_resource_write', respond: () => Promise.reject(broken) },
    ]);
    await healthyRunner(retry);
    const output = await invokeTool(nc, { ...invocation, attempt: 2 }, 60_000);
    asked.stop();

    expect(output).toMatchObject({ type: 'result', result: expect.stringContaining('the write stands') });
    expect(output).toMatchObject({ result: expect.stringContaining('/character/yu_a2') });
    retry.assertDone(); // the follow-up only: no content or operations generated again
    expect(asked.requests).toHaveLength(1);
    const yu = await resources(nc, Subjects.resources.find, { uri: '/character/yu_a2' }, FindReply);
    expect(yu).toMatchObject({ element: { properties: { appearance: FIRST } } });
    expect(await groupsIn(invocation.invocationId)).toBe(1);
  }, 90_000);

  it('(a) crash during the follow-up: the retry carries out the recorded follow-up, storing no backlog item twice', async () => {
    const invocation = writeCall('goal-crash-a3', 'yu_a3');
    const asked = serveInteractions(nc, 'goal-crash-a3', () => ({ approved: true }));
    const item = (description: string) => ({
      type: 'develop',
      priority: 'normal',
      description,
      context_reference: null,
      search_guidance: null,
      creation_guidance: null,
      aspect_hint: null,
      rationale: null,
      target_resources: [],
    });
    const fault = { crash: (): Promise<never> => Promise.reject(new Error('no runner yet')) };
    const first = await crashingRunner(
      new ScriptedChatModel([
        ...planning('yu_a3', FIRST),
        ...followUp('unused').slice(0, 1),
        {
          kind: 'structured',
          schemaName: 'backlog_items',
          respond: { backlog_items: [item('FIRST a3 item')] },
        },
        { kind: 'text', purpose: 'summarize_resource_write', respond: () => fault.crash() },
      ]),
      'scripted',
    );
    fault.crash = first.crash;
    await firstAttemptDies(invocation, first.died);

    const retry = new ScriptedChatModel(followUp('Created yu_a3.').slice(2));
    await healthyRunner(retry);
    const output = await invokeTool(nc, { ...invocation, attempt: 2 }, 60_000);
    asked.stop();

    expect(output).toMatchObject({ type: 'result', result: 'Created yu_a3.' });
    retry.assertDone(); // the summary only: the updates and backlog items were recorded by the first attempt
    expect(asked.requests).toHaveLength(1);
    const backlog = await resources(nc, Subjects.resources.backlogList, {}, BacklogListReply);
    const items = backlog.entries.filter((e) => String(e.content['description']).includes('a3 item'));
    expect(items.map((e) => e.content['description'])).toEqual(['FIRST a3 item']);
    expect(await groupsIn(invocation.invocationId)).toBe(1);
  }, 90_000);

  it('(b) crash after the human confirmed, before the apply: the retry applies exactly the confirmed content without asking again', async () => {
    const invocation = writeCall('goal-crash-b', 'yu_b');
    const asked = serveInteractions(nc, 'goal-crash-b', () => ({ approved: true }));
    const { died } = await crashingRunner(new ScriptedChatModel(planning('yu_b', FIRST)), 'apply');
    await firstAttemptDies(invocation, died);
    expect(await groupsIn(invocation.invocationId)).toBe(0); // nothing was written yet

    const retry = new ScriptedChatModel(followUp('Created yu_b.'));
    await healthyRunner(retry);
    const output = await invokeTool(nc, { ...invocation, attempt: 2 }, 60_000);
    asked.stop();

    expect(output).toMatchObject({ type: 'result', result: 'Created yu_b.' });
    retry.assertDone();
    expect(asked.requests).toHaveLength(1);
    const yu = await resources(nc, Subjects.resources.find, { uri: '/character/yu_b' }, FindReply);
    expect(yu).toMatchObject({ element: { properties: { appearance: FIRST } } });
    expect(await groupsIn(invocation.invocationId)).toBe(1);
  }, 90_000);

  it('(c) crash after the human declined: the retry does not ask again, applies nothing and says so, truly', async () => {
    const invocation = writeCall('goal-crash-c', 'yu_c');
    // The first question is declined; any later one would be approved (a retry that asked again would write).
    const asked = serveInteractions(nc, 'goal-crash-c', () => ({ approved: asked.requests.length > 1 }));
    const { died } = await crashingRunner(new ScriptedChatModel(planning('yu_c', FIRST)), 'record');
    await firstAttemptDies(invocation, died);

    const retry = new ScriptedChatModel([
      ...planning('yu_c', 'SECOND-ATTEMPT'),
      ...followUp('Created yu_c.'),
    ]);
    await healthyRunner(retry);
    const output = await invokeTool(nc, { ...invocation, attempt: 2 }, 60_000);
    asked.stop();

    expect(output).toMatchObject({ type: 'result', result: expect.stringContaining('nothing was changed') });
    expect(retry.calls).toHaveLength(0);
    expect(asked.requests).toHaveLength(1);
    await expect(
      resources(nc, Subjects.resources.find, { uri: '/character/yu_c' }, FindReply),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await groupsIn(invocation.invocationId)).toBe(0);
  }, 90_000);

  it('a retry with other parameters than the first attempt is refused (CONFLICT): the recorded plan was for another request', async () => {
    const invocation = writeCall('goal-crash-f', 'yu_f');
    const asked = serveInteractions(nc, 'goal-crash-f', () => ({ approved: true }));
    const { died } = await crashingRunner(new ScriptedChatModel(planning('yu_f', FIRST)), 'apply');
    await firstAttemptDies(invocation, died);

    // Same invocation id, another request: the plan confirmed for yu_f must not be applied for it.
    const other = writeCall('goal-crash-f', 'mo_f');
    const retry = new ScriptedChatModel([]);
    await healthyRunner(retry);
    const output = await invokeTool(
      nc,
      { ...other, invocationId: invocation.invocationId, attempt: 2 },
      60_000,
    );
    asked.stop();

    expect(output).toMatchObject({
      type: 'error',
      error: { code: 'CONFLICT', message: expect.stringContaining('other parameters') as unknown },
    });
    expect(retry.calls).toHaveLength(0);
    expect(asked.requests).toHaveLength(1);
    await expect(
      resources(nc, Subjects.resources.find, { uri: '/character/yu_f' }, FindReply),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await groupsIn(invocation.invocationId)).toBe(0);
  }, 90_000);

  it('the other write tools apply the plan their crashed first attempt recorded, without asking the model again', async () => {
    await applyOperations(nc, [
      {
        type: 'splice',
        location: { uri: '/character', childrenKey: null },
        start: 0,
        end: 0,
        data: [
          { id: 'lin_d', properties: { name: 'Lin' } },
          { id: 'mo_d', properties: { name: 'Mo' } },
        ],
      },
    ]);
    const relation = toolInvocation(
      'ResourceRelationWriteTool',
      {
        source_resource_uri: '/character/lin_d',
        target_resource_uri: '/character/mo_d',
        operation: 'add',
        relation_description: 'rivals',
      },
      { goalId: 'goal-crash-d', deadlineMs: 60_000 },
    );
    const lists = (relations: string[]): ScriptEntry => ({
      kind: 'structured',
      schemaName: 'updated_relations',
      respond: { relations },
    });
    const first = await crashingRunner(
      new ScriptedChatModel([lists(['FIRST rival']), lists(['FIRST rival too'])]),
      'apply',
      relation.tool,
    );
    await firstAttemptDies(relation, first.died);
    const retry = new ScriptedChatModel([
      { kind: 'text', purpose: 'summarize_relation_write', respond: 'They are rivals.' },
    ]);
    await healthyRunner(retry, relation.tool);
    expect(await invokeTool(nc, { ...relation, attempt: 2 }, 60_000)).toMatchObject({
      type: 'result',
      result: 'They are rivals.',
    });
    retry.assertDone(); // the summary only: the lists were not asked for again
    const lin = await resources(nc, Subjects.resources.find, { uri: '/character/lin_d' }, FindReply);
    const mo = await resources(nc, Subjects.resources.find, { uri: '/character/mo_d' }, FindReply);
    expect(lin).toMatchObject({ element: { relationships: { '/character/mo_d': ['FIRST rival'] } } });
    expect(mo).toMatchObject({ element: { relationships: { '/character/lin_d': ['FIRST rival too'] } } });

    const aspect = toolInvocation(
      'AspectCreateTool',
      { name: 'place_e', description: ['places'] },
      { goalId: 'goal-crash-e', deadlineMs: 60_000 },
    );
    const draft = {
      description: 'FIRST places',
      children_keys: [],
      dependencies: [],
      required_fields: [],
      optional_fields: [],
      extensibility: { description: 'free', examples: [] },
      constraints: [],
      extra_sections: [],
    };
    const died = await crashingRunner(
      new ScriptedChatModel([{ kind: 'structured', schemaName: 'aspect_metadata', respond: draft }]),
      'apply',
      aspect.tool,
    );
    await firstAttemptDies(aspect, died.died);
    const silent = new ScriptedChatModel([]);
    await healthyRunner(silent, aspect.tool);
    expect(await invokeTool(nc, { ...aspect, attempt: 2 }, 60_000)).toMatchObject({ type: 'result' });
    expect(silent.calls).toHaveLength(0);
    const created = await resources(nc, Subjects.resources.find, { uri: '/place_e' }, FindReply);
    expect(created).toMatchObject({ aspect: { description: 'FIRST places' } });
  }, 90_000);
});
