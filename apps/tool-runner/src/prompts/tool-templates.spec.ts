import { NunjucksPromptRenderer, findTemplatesRoot } from '@novelrag/llm';

const update = { reason: 'she was there', content: '/character/yu_gui saw the fire at /location/azure_peak' };
const writeVars = {
  step_description: 'Create 余归',
  operations: '[]',
  undo_operations: '[]',
  context: '### Resource /character\n{}',
};

/** Every tool prompt with the variables its caller supplies (the renderer fails on any missing one). */
const CASES: Record<string, Record<string, unknown>> = {
  tool_initialize_aspect_metadata: { aspect_name: 'character', aspect_description: ['people of the story'] },
  tool_get_updated_relations: {
    source_resource: '{}',
    target_resource: '{}',
    existing_relation: ['ally of'],
    operation: 'add',
    relation_description: 'sworn enemy',
  },
  tool_summarize_relation_write: {
    source_uri: '/character/a',
    target_uri: '/faction',
    operation: 'add',
    relation_description: 'member',
    old_source_to_target: [],
    new_source_to_target: ['member of'],
    old_target_to_source: null,
    new_target_to_source: null,
  },
  tool_generate_content_perspectives: {
    operation_specification: 'Create 余归',
    task_description: 'her appearance',
    context: '(none)',
    beliefs: ['a wuxia world'],
    num_perspectives: 5,
  },
  tool_generate_content_from_perspective: {
    operation_specification: 'Create 余归',
    task_description: 'her appearance',
    context: '(none)',
    beliefs: [],
    perspective_description: 'through the eyes of a blind monk',
    perspective_rationale: 'unusual sense',
  },
  tool_generate_content_fallback: {
    operation_specification: 'Create 余归',
    task_description: 'her appearance',
    context: '(none)',
    beliefs: [],
  },
  tool_sort_edit_proposals: { proposals: ['one', 'two'] },
  tool_build_operation: {
    action: 'Create 余归',
    content_results: [{ description: 'appearance', content_key: 'appearance', content: 'tall' }],
    context: '(none)',
  },
  tool_discover_required_updates: writeVars,
  tool_build_perspective_update_operation: { ...writeVars, update },
  tool_parse_relation_update_uris: { update, context: '(none)' },
  tool_build_relation_update: {
    ...writeVars,
    update,
    source_resource: '{}',
    target_resource: '{}',
    source_to_target_existing: [],
    target_to_source_existing: ['friend of'],
  },
  tool_discover_backlog: writeVars,
  tool_summarize_resource_write: {
    operation_specification: 'Create 余归',
    applied_operations: '[]',
    undo_operations: '[]',
    perspective_updates_applied: ['noted in /location/azure_peak'],
    relation_updates_applied: [],
    backlog_count: 2,
  },
};

describe('tool prompt templates', () => {
  const renderer = new NunjucksPromptRenderer({ root: findTemplatesRoot() });

  it.each(Object.entries(CASES))('%s renders in en and in its own zh version', (name, vars) => {
    const en = renderer.render(name, vars, 'en');
    const zh = renderer.render(name, vars, 'zh');
    expect(en.length).toBeGreaterThan(100);
    expect(zh).not.toEqual(en);
    expect(zh).toMatch(/[\u4e00-\u9fff]/);
  });

  it('fails loudly when a caller forgets a variable', () => {
    expect(() => renderer.render('tool_build_operation', { action: 'x', context: '' }, 'en')).toThrow(
      /content_results/,
    );
  });

  it('shows the relationship directions only when the target is an element', () => {
    const aspectTarget = renderer.render(
      'tool_summarize_relation_write',
      CASES['tool_summarize_relation_write']!,
      'en',
    );
    expect(aspectTarget).toContain('only the source side');
    const both = renderer.render(
      'tool_summarize_relation_write',
      {
        ...CASES['tool_summarize_relation_write'],
        old_target_to_source: [],
        new_target_to_source: ['has member'],
      },
      'en',
    );
    expect(both).toContain('Target → source now: ["has member"]');
  });
});
