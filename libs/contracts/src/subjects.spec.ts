import {
  Buckets,
  InvalidSubjectTokenError,
  KvKeys,
  MicroServiceNames,
  Streams,
  Subjects,
  TRACE_KINDS,
  goalIdFromSubject,
  isSubjectToken,
  isToolServiceName,
  toolFromInvokeSubject,
} from './index';

describe('SubjectToken', () => {
  it.each(['g-1', 'abc_DEF', '余归', 'a'.repeat(128)])('accepts %s', (t) =>
    expect(isSubjectToken(t)).toBe(true),
  );
  it.each(['', 'a.b', 'a b', 'a*', '>', 'tab\there', 'nl\n', 'a'.repeat(129), 42])('rejects %p', (t) =>
    expect(isSubjectToken(t)).toBe(false),
  );
});

describe('Subjects', () => {
  it('builds the goal subjects', () => {
    expect(Subjects.goalSubmitted).toBe('novelrag.goals.submitted');
    expect(Subjects.goalCancel('g-1')).toBe('novelrag.goals.g-1.cancel');
    expect(Subjects.goalRuntime('g-1')).toBe('novelrag.goals.g-1.runtime');
    expect(Subjects.goalInteract('g-1')).toBe('novelrag.goals.g-1.interact');
    expect(Subjects.interactionAnswer('g-1', 'ia-2')).toBe('novelrag.goals.g-1.interactions.ia-2.answer');
    expect(Subjects.goalCancelAll).toBe('novelrag.goals.*.cancel');
  });

  it('builds tool, resource, trace and health subjects', () => {
    expect(Subjects.toolInvoke('ResourceWriteTool')).toBe('novelrag.tools.ResourceWriteTool.invoke');
    expect(Subjects.toolInvokeAll).toBe('novelrag.tools.*.invoke');
    expect(Subjects.toolsChanged).toBe('novelrag.tools.changed');
    expect(toolFromInvokeSubject(Subjects.toolsChanged)).toBeNull();
    expect(Subjects.resources.aspectsCreate).toBe('novelrag.resources.aspects.create');
    expect(Object.values(Subjects.memory)).toEqual([
      'novelrag.memory.summary',
      'novelrag.memory.retrieve',
      'novelrag.memory.store',
      'novelrag.memory.forget',
    ]);
    expect(Subjects.resources.backlogRemove).toBe('novelrag.resources.backlog.remove');
    expect(Subjects.resources.find).toBe('novelrag.resources.find');
    expect(Subjects.resourcesChanged).toBe('novelrag.resources.changed');
    expect(Subjects.trace('g-1', 'goal.accepted')).toBe('novelrag.trace.g-1.goal.accepted');
    expect(Subjects.traceOfGoal('g-1')).toBe('novelrag.trace.g-1.>');
    expect(Subjects.health('tool-runner')).toBe('novelrag.health.tool-runner');
    expect(Subjects.instanceHealth('gateway', 'abc123')).toBe('novelrag.health.gateway.abc123');
  });

  it('has 16 distinct resource subjects under novelrag.resources', () => {
    const all = Object.values(Subjects.resources);
    expect(all).toHaveLength(16);
    expect(new Set(all).size).toBe(16);
    for (const s of all) expect(s.startsWith('novelrag.resources.')).toBe(true);
  });

  it('every trace kind makes a valid trace subject captured by the TRACE stream', () => {
    for (const kind of TRACE_KINDS) {
      const subject = Subjects.trace('g-1', kind);
      expect(subject.startsWith('novelrag.trace.g-1.')).toBe(true);
      expect(Streams.trace.subjects[0]).toBe('novelrag.trace.>');
    }
  });

  it.each([
    ['goalCancel', () => Subjects.goalCancel('g.1')],
    ['goalRuntime', () => Subjects.goalRuntime('*')],
    ['goalInteract', () => Subjects.goalInteract('>')],
    ['interactionAnswer goal', () => Subjects.interactionAnswer('a b', 'ia')],
    ['interactionAnswer interaction', () => Subjects.interactionAnswer('g', 'ia.x')],
    ['toolInvoke', () => Subjects.toolInvoke('tools.*')],
    ['trace goal', () => Subjects.trace('', 'goal.accepted')],
    ['trace kind', () => Subjects.trace('g', 'goal..accepted')],
    ['traceOfGoal', () => Subjects.traceOfGoal('g.>')],
    ['instanceHealth', () => Subjects.instanceHealth('gateway', 'a.b')],
    ['kv goal', () => KvKeys.goal('x.y')],
    ['kv note invocation', () => KvKeys.toolNote('inv.1', 'plan')],
    ['kv note name', () => KvKeys.toolNote('inv-1', 'write.plan')],
    ['tool service', () => MicroServiceNames.toolService('a.b')],
  ])('%s rejects a bad token', (_name, build) => {
    expect(build).toThrow(InvalidSubjectTokenError);
  });

  it("keys an invocation's notes beside its result, never on it", () => {
    expect(KvKeys.toolNote('inv-1', 'write-plan')).toBe('inv-1.note.write-plan');
    expect(KvKeys.toolNote('inv-1', 'write-plan')).not.toBe(KvKeys.toolResult('inv-1'));
  });

  it('rejects unknown service names at runtime', () => {
    expect(() => Subjects.health('nope' as 'gateway')).toThrow(InvalidSubjectTokenError);
  });
});

describe('streams, buckets, service names', () => {
  it('declares the GOALS work queue and the buckets', () => {
    expect(Streams.goals).toMatchObject({
      name: 'GOALS',
      retention: 'workqueue',
      subjects: ['novelrag.goals.submitted'],
    });
    expect(Streams.trace.name).toBe('TRACE');
    expect(Buckets).toEqual({
      goals: 'goals',
      toolResults: 'tool-results',
      threads: 'threads',
      threadLeases: 'thread-leases',
      rateLimits: 'rate-limits',
    });
    expect(Subjects.autonomousNext).toBe('novelrag.autonomous.next');
    expect(goalIdFromSubject(Subjects.autonomousNext)).toBeNull();
    expect(MicroServiceNames.resources).toBe('novelrag-resources');
  });

  it('recognises tool services', () => {
    expect(isToolServiceName(MicroServiceNames.tools)).toBe(true);
    expect(isToolServiceName(MicroServiceNames.toolService('acme_search'))).toBe(true);
    expect(isToolServiceName('novelrag-resources')).toBe(false);
  });

  it('parses subjects back', () => {
    expect(toolFromInvokeSubject('novelrag.tools.echo.invoke')).toBe('echo');
    expect(toolFromInvokeSubject('novelrag.tools.echo.other')).toBeNull();
    expect(toolFromInvokeSubject('novelrag.resources.find')).toBeNull();
    expect(goalIdFromSubject('novelrag.goals.g-1.runtime')).toBe('g-1');
    expect(goalIdFromSubject('novelrag.trace.g-1.goal.accepted')).toBe('g-1');
    expect(goalIdFromSubject('novelrag.goals.submitted')).toBeNull();
    expect(goalIdFromSubject('other.goals.g-1.cancel')).toBeNull();
  });
});
