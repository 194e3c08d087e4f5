import { ScriptedChatModel } from '@novelrag/agenturn/testing';
import { ActionDetermineLoop } from './action-determine-loop';
import {
  assessmentOf,
  approve,
  assess,
  callTool,
  discover,
  finalize,
  refine,
  relevance,
} from './test-support/script';
import { prompt, setup } from './test-support/harness';
import { renderer, world } from './test-support/world';

describe('ActionDetermineLoop: phases', () => {
  it('answers directly from the context: search → relevance → decision grounded in the hit → approve', async () => {
    const t = setup([
      assess(),
      discover({ search_queries: ['余归'] }),
      relevance({ sorted_segments: ['/character/yu_gui', '/'] }),
      discover(),
      finalize('success', '余归 is the protagonist, a disciple of the Azure Sect.', {
        evidence: ['segment #1'],
      }),
      approve(),
    ]);
    const decision = await t.run();
    expect(decision).toEqual({
      kind: 'resolution',
      status: 'success',
      response: '余归 is the protagonist, a disciple of the Azure Sect.',
      reason: 'analysis',
    });
    t.model.assertDone();
    expect(t.resources.searches).toEqual([{ query: '余归', limit: 5 }]);
    // the decision saw the hit's properties, first after the sort
    const decide = prompt(t.model, 4);
    expect(decide).toMatch(/segment #1: \/character\/yu_gui/);
    expect(decide).toContain('- role: protagonist');
    expect(t.observer.of('llm').map((e) => e.info.purpose)).toEqual([
      'pursuit_assessment',
      'context_discovery',
      'context_relevance',
      'context_discovery',
      'action_decision',
      'refinement_analysis',
    ]);
    expect(t.observer.of('llm').every((e) => e.info.ok && e.info.promptTokens > 0)).toBe(true);
    expect(t.observer.events.map((e) => e.kind)).toEqual([
      'llm',
      'assessment',
      'llm',
      'discovery',
      'context',
      'llm',
      'relevance',
      'context',
      'llm',
      'discovery',
      'context',
      'llm',
      'decision',
      'llm',
      'verdict',
    ]);
    expect(t.observer.of('decision')[0]?.iteration).toBe(2);
    // Search indexes relationships from both ends, so the sect she is a disciple of is found by her name too.
    expect(t.loop.workspace().searchHistory).toEqual([
      { query: '余归', aspect: null, uris: ['/character/yu_gui', '/faction/azure_sect'] },
    ]);
    expect(t.loop.toolWorkspace().segments.map((s) => s.uri)).toEqual([
      '/character/yu_gui',
      '/',
      '/faction/azure_sect',
    ]);
  });

  it('executes a ready tool once expanded; only expanded tools (plus Finalize) are offered', async () => {
    const t = setup([
      assess(),
      discover({ expand_tools: ['create_element', 'legacy_import', 'no_such_tool'] }),
      callTool('create_element', { uri: '/character/lin', name: 'Lin' }),
      approve(),
    ]);
    const decision = await t.run('Create Lin');
    expect(decision).toEqual({
      kind: 'operation',
      tool: 'create_element',
      parameters: { uri: '/character/lin', name: 'Lin' },
      reason: 'analysis',
    });
    t.model.assertDone();
    expect(t.model.calls[2]?.toolNames).toEqual(['create_element', 'Finalize']);
    expect(t.loop.workspace().expandedTools).toEqual(['create_element']);
    // discovery listed the unavailable tool as such, never as expandable
    expect(prompt(t.model, 1)).toMatch(/Unavailable tools[^\n]*\n- legacy_import/);
    // the decision prompt leaves the schema to the tool definition; the verdict prompt shows it
    expect(prompt(t.model, 2)).not.toContain('"additionalProperties"');
    expect(prompt(t.model, 3)).toContain('"additionalProperties"');
  });

  it('applies exclusions, hidden properties, collapses and the new order; the store renders them', async () => {
    const t = setup([
      assess(),
      discover({
        search_queries: ['Azure'],
        query_resources: ['/character/yu_gui'],
        expand_tools: ['create_element', 'link_resources'],
      }),
      relevance({
        exclude_resources: ['/faction/azure_sect', '/'],
        exclude_properties: [{ uri: '/character/yu_gui', property: 'secret' }],
        collapse_tools: ['create_element'],
        sorted_segments: ['/character/yu_gui'],
      }),
      discover(),
      finalize('success', 'done'),
      approve(),
    ]);
    await t.run();
    t.model.assertDone();
    const last = t.resources.segmentRequests.at(-1);
    expect(last?.excludedUris).toEqual(['/faction/azure_sect']);
    expect(last?.segments).toEqual([
      { uri: '/character/yu_gui', excludedProperties: ['secret'] },
      { uri: '/', excludedProperties: [] },
    ]);
    const decide = prompt(t.model, 4);
    expect(decide).not.toContain('hidden past');
    expect(decide).toContain('Hidden properties: secret');
    expect(decide).not.toContain('/faction/azure_sect'); // hidden from relationships too
    expect(t.model.calls[4]?.toolNames).toEqual(['link_resources', 'Finalize']);
    expect(t.observer.of('context').at(-1)?.stats).toEqual({
      segments: 2,
      excludedUris: 1,
      nonexistentUris: 0,
      searches: 1,
      expandedTools: ['link_resources'],
    });
  });

  it('records URIs that do not exist and shows them to the next discovery', async () => {
    const t = setup([
      assess(),
      discover({ query_resources: ['/character/nobody', 'not a uri'] }),
      relevance(),
      discover(),
      finalize('incomplete', 'No such character', { gaps: ['/character/nobody does not exist'] }),
      approve(),
    ]);
    const decision = await t.run();
    expect(decision).toMatchObject({ kind: 'resolution', status: 'incomplete' });
    expect(t.loop.workspace().nonexistentUris).toEqual(['not a uri', '/character/nobody']);
    expect(prompt(t.model, 3)).toMatch(/Do not query these again:\n- not a uri\n- \/character\/nobody/);
  });

  it('passes the previous assessment and the history to the assessor, and keeps the workspace across steps', async () => {
    const first = assessmentOf('create Lin');
    const t = setup(
      [
        assess(first),
        discover({ search_queries: ['余归'] }),
        relevance(),
        discover(),
        finalize('success', 'ok'),
        approve(),
        assess(),
        discover(),
        finalize('success', 'ok'),
        approve(),
      ],
      {
        history: 'user: who is 余归?',
      },
    );
    await t.run();
    expect(prompt(t.model, 0)).toContain('None: this is the first assessment');
    expect(prompt(t.model, 0)).toContain('user: who is 余归?');
    await t.run();
    t.model.assertDone();
    expect(prompt(t.model, 6)).toContain('Remaining work: create Lin');
    expect(prompt(t.model, 7)).toContain('"余归" → /character/yu_gui'); // search history survived the step
    const resumed = new ActionDetermineLoop({
      model: new ScriptedChatModel([]),
      renderer: renderer(),
      resources: world(),
      workspace: t.loop.workspace(),
      previousAssessment: first,
    });
    expect(resumed.workspace()).toEqual(t.loop.workspace());
    expect(resumed.lastAssessment()).toEqual(first);
  });
});

describe('ActionDetermineLoop: seed 002 edge cases', () => {
  it('tool ready with all prerequisites: executes only after min iterations', async () => {
    const t = setup(
      [
        assess(),
        discover({ expand_tools: ['create_element'] }),
        callTool('create_element', { uri: '/character/lin', name: 'Lin' }),
        approve(),
        discover(),
        callTool('create_element', { uri: '/character/lin', name: 'Lin' }, 'second look'),
        approve(),
      ],
      { minIterations: 2 },
    );
    const decision = await t.run('Create Lin');
    t.model.assertDone();
    expect(decision).toMatchObject({ kind: 'operation', reason: 'second look' });
    expect(t.observer.of('decision').map((d) => d.iteration)).toEqual([1, 2]);
  });

  it('min iterations never delay a finalization', async () => {
    const t = setup([assess(), discover(), finalize('success', 'known'), approve()], { minIterations: 3 });
    expect(await t.run()).toMatchObject({ status: 'success' });
    t.model.assertDone();
  });

  it('missing prerequisites: refine replaces the assessment and the hints are applied before the next round', async () => {
    const refined = assessmentOf('link 余归 to the sect', { required_context: 'the URI of the Azure Sect' });
    const t = setup([
      assess(),
      discover({ expand_tools: ['link_resources'] }),
      callTool('link_resources', { source: '/character/yu_gui', target: '/faction/azure' }),
      refine(refined, { search_terms: ['Azure Sect'], resource_paths: ['/character/yu_gui'] }),
      discover(),
      callTool('link_resources', { source: '/character/yu_gui', target: '/faction/azure_sect' }),
      approve(),
    ]);
    const decision = await t.run('Link 余归 to the Azure Sect');
    t.model.assertDone();
    expect(decision).toMatchObject({ kind: 'operation', parameters: { target: '/faction/azure_sect' } });
    expect(t.resources.searches.map((s) => s.query)).toEqual(['Azure Sect']);
    expect(t.observer.of('assessment')).toEqual([
      { kind: 'assessment', assessment: assessmentOf('everything') },
      { kind: 'assessment', assessment: refined, iteration: 1 },
    ]);
    expect(t.loop.lastAssessment()).toEqual(refined);
    // the second round plans with the refined assessment and the hinted resources
    expect(prompt(t.model, 4)).toContain('Required context: the URI of the Azure Sect');
    expect(prompt(t.model, 4)).toContain('segment #2: /faction/azure_sect');
    expect(prompt(t.model, 4)).toContain('segment #3: /character/yu_gui');
  });

  it('wrong tool initially selected: refinement points at another tool, which the next decision uses', async () => {
    const t = setup([
      assess(),
      discover({ expand_tools: ['create_element'] }),
      callTool('create_element', { uri: '/faction/azure_sect', name: 'Azure Sect' }),
      refine(assessmentOf('link instead of create'), { tools_to_expand: ['link_resources'] }),
      discover(),
      callTool('link_resources', { source: '/character/yu_gui', target: '/faction/azure_sect' }),
      approve(),
    ]);
    expect(await t.run()).toMatchObject({ tool: 'link_resources' });
    t.model.assertDone();
    expect(t.model.calls[5]?.toolNames).toEqual(['create_element', 'link_resources', 'Finalize']);
  });

  it('no suitable tool exists: finalizes failed with the explanation', async () => {
    const t = setup([assess(), discover(), finalize('failed', 'No tool can delete aspects.'), approve()]);
    expect(await t.run('Delete every aspect')).toEqual({
      kind: 'resolution',
      status: 'failed',
      response: 'No tool can delete aspects.',
      reason: 'analysis',
    });
    t.model.assertDone();
  });

  it('renders the context again only when a plan changed it: a discovery that asks for nothing reuses its rendering', async () => {
    const t = setup([
      assess(),
      discover({ search_queries: ['余归'] }),
      relevance(),
      discover(),
      finalize('success', '余归 is the protagonist.'),
      approve(),
    ]);
    await t.run();
    t.model.assertDone();
    // Iteration 1: for discovery, then after its search (for relevance); iteration 2: for discovery, which the decision
    // reuses (the search hit is in it).
    expect(t.resources.segmentRequests.map((r) => r.segments.map((s) => s.uri))).toEqual([
      ['/'],
      ['/', '/character/yu_gui', '/faction/azure_sect'],
      ['/', '/character/yu_gui', '/faction/azure_sect'],
    ]);
    expect(prompt(t.model, 4)).toMatch(/segment #\d: \/character\/yu_gui/);
  });

  it('context discovery finds nothing: proceeds to the decision with the context it has', async () => {
    const t = setup([
      assess(),
      discover({ search_queries: ['Moon Palace'] }),
      relevance(),
      discover(),
      finalize('incomplete', 'Nothing about the Moon Palace', { gaps: ['no data'] }),
      approve(),
    ]);
    expect(await t.run('Who founded the Moon Palace?')).toMatchObject({ status: 'incomplete' });
    t.model.assertDone();
    expect(t.loop.workspace().searchHistory).toEqual([{ query: 'Moon Palace', aspect: null, uris: [] }]);
  });

  it('max iterations reached: returns the last planned action even though it was never approved', async () => {
    const t = setup(
      [
        assess(),
        discover(),
        callTool('Finalize', { status: 'incomplete', response: 'first', evidence: [], gaps: [] }),
        refine(assessmentOf('again')),
        discover({ expand_tools: ['create_element'] }),
        callTool('create_element', { uri: '/character/lin', name: 'Lin' }),
        refine(null),
      ],
      { maxIterations: 2 },
    );
    expect(await t.run()).toMatchObject({ kind: 'operation', tool: 'create_element' });
    t.model.assertDone();
    expect(t.context.events).toContainEqual({
      kind: 'warning',
      message: expect.stringMatching(/iteration cap \(2\)/),
    });
  });

  it('the cap also ends the context loop: discovery is applied, relevance skipped', async () => {
    const t = setup(
      [assess(), discover({ search_queries: ['余归'] }), finalize('success', 'found'), refine(null)],
      { maxIterations: 1 },
    );
    expect(await t.run()).toMatchObject({ status: 'success', response: 'found' });
    t.model.assertDone();
    expect(t.observer.of('relevance')).toEqual([]);
  });

  it('circular dependencies: finalizes incomplete with the explanation', async () => {
    const t = setup([
      assess(),
      discover(),
      finalize('incomplete', 'The sect needs its founder and the founder needs the sect.', {
        gaps: ['founder ↔ sect'],
      }),
      approve(),
    ]);
    expect(await t.run()).toMatchObject({
      status: 'incomplete',
      response: expect.stringContaining('founder'),
    });
    expect(t.observer.of('decision')[0]?.decision).toMatchObject({
      decision_type: 'finalize',
      gaps: ['founder ↔ sect'],
    });
  });
});
